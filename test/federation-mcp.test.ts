// An unmodified MCP client (official SDK v1, Streamable HTTP, dynamic client registration) connects
// to an MCP server protected by Toolgate while the person signs in through an upstream OpenID
// provider (a real node-oidc-provider on loopback): the account is created just in time, its
// upstream group gives it the server's scope, and the tool call runs as that account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { browserTestsRun, launchChromium } from "./helpers/chromium";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { startToolgate, type Harness } from "./helpers/harness";
import { startProtectedMcpServer, type ProtectedMcpServer } from "./helpers/protected-mcp";
import { SignInProvider } from "./helpers/sdk-oauth-provider";
import { formOf, setUpSignIn } from "./helpers/signin-flow";
import { crossOriginBrowser, startOidcProvider, type OidcProviderHandle } from "./helpers/upstream-idp";

const REDIRECT = "http://127.0.0.1:9/mcp-client/callback";
let h: Harness;
let op: OidcProviderHandle;
let mcp: ProtectedMcpServer;
let serverId: string;

/** The MCP client's "open a browser" step, through the upstream provider instead of a password. */
class FederatedSignIn extends SignInProvider {
  override async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizations++;
    const b = crossOriginBrowser();
    const login = await b.follow(url);
    const link = /<a href="([^"]+)">Continue with Acme SSO<\/a>/.exec(login.html);
    if (!link) throw new Error(`no provider on the sign-in page: ${login.status}`);
    let done: Awaited<ReturnType<typeof b.request>> = await b.follow(new URL(link[1]!.replace(/&amp;/g, "&"), h.url), REDIRECT);
    if (done.status === 200) {
      const form = formOf({ url: done.url, status: 200, headers: done.headers, html: done.html });
      done = await b.request(form.action, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ ...form.fields, decision: "allow" }) });
    }
    if (done.status !== 302 || !done.location) throw new Error(`no redirect to the client: ${done.status} ${done.html}`);
    this.callback = done.location;
  }
}

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  op = await startOidcProvider(`${h.config.publicUrl}/svc/hmgr/callback`);
  mcp = await startProtectedMcpServer({ toolgate: h.url, issuer: h.config.publicUrl, scopes: ["notes:read"], name: "Notes" });
  const setup = await setUpSignIn(h.url, h.adminToken, { name: "Notes", scopes: ["notes:read"], users: [], redirectUri: REDIRECT, publicBaseUrl: mcp.origin });
  mcp.protect({ rsId: setup.serverId, secret: setup.introspectionSecret });
  serverId = setup.serverId;
  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "notes reader", grants: [{ resource_server_id: setup.serverId, scope_ids: ["notes:read"] }] });
  const group = await h.admin("POST", "/uflow/v2/groups", { name: "staff" });
  await h.admin("POST", `/uflow/v2/groups/${group.body.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
  const provider = await h.admin("POST", "/svc/oocmgr/providers", {
    name: "Acme SSO",
    issuer: op.issuer,
    client_id: op.clientId,
    client_secret: op.clientSecret,
    scopes: "openid email profile groups",
    group_sync: [{ upstream: "staff", group_id: group.body.id }],
  });
  expect(provider.status, provider.text).toBe(201);
  op.accounts.set("zoe-sub", { email: "zoe@acme.test", email_verified: true, name: "Zoe", groups: ["staff"] });
  op.next = { sub: "zoe-sub" };
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await op?.close();
  await h?.close();
});

it("an unmodified MCP SDK client connects with the user signed in through the upstream provider", async () => {
  const signIn = new FederatedSignIn({ publicUrl: h.config.publicUrl, serverUrl: h.url, user: { email: "", password: "" }, redirectUrl: REDIRECT, clientName: "Federated MCP client" });
  const url = new URL(mcp.resource);
  const first = new Client({ name: "e2e", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: signIn as never }))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(signIn.authorizations).toBe(1);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: signIn as never });
  await transport.finishAuth(signIn.callback!.searchParams.get("code")!);
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  const zoe = await h.db.user.findFirstOrThrow({ where: { tenantId: h.workspaceId, email: "zoe@acme.test" } });
  const r = await client.callTool({ name: "whoami", arguments: { note: "sso" } });
  expect((r.content as Array<{ text: string }>)[0]!.text).toBe(`${zoe.id} via ${signIn.clientId} with notes:read (sso)`);
  await client.close();
});

describe.skipIf(!browserTestsRun)("in headless Chromium", () => {
  it("the person clicks Continue with Acme SSO, is signed in upstream, allows, and the app gets a code", async () => {
    op.accounts.set("yan-sub", { email: "yan@acme.test", email_verified: true, name: "Yan", groups: ["staff"] });
    op.next = { sub: "yan-sub" };
    const browser = await launchChromium();
    try {
      // A redirect URI on Toolgate's origin (another origin works too: test/signin-browser-redirect.test.ts).
      const appRedirect = `${h.config.publicUrl}/client-callback`;
      const app = await h.admin("POST", `/svc/resource-servers/${serverId}/clients`, { client_name: "Browser app", kind: "human_app", redirect_uris: [appRedirect], allowed_scopes: ["notes:read"] });
      expect(app.status).toBe(201);
      const page = await browser.newPage();
      const verifier = randomBytes(32).toString("base64url");
      const url = new URL(`${h.config.publicUrl}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: app.body.client_id,
        redirect_uri: appRedirect,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        state: "chromium-state",
        scope: "notes:read",
        resource: mcp.resource,
      }).toString();
      await page.goto(url.href);
      await page.getByRole("link", { name: "Continue with Acme SSO" }).click();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((u) => u.href.startsWith(appRedirect));
      const back = new URL(page.url());
      expect(back.searchParams.get("state")).toBe("chromium-state");
      expect(back.searchParams.get("code")).toBeTruthy();
      const cookies = await page.context().cookies(h.config.publicUrl);
      expect(cookies.find((c) => c.name === "toolgate_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
      expect(cookies.find((c) => c.name === "toolgate_federation")).toBeUndefined();
    } finally {
      await browser.close();
    }
  });
});
