// toolgate/sdk end to end: the sample notes server protected by the SDK, an unmodified official MCP
// client (v1 @modelcontextprotocol/sdk) that finds Toolgate through the RFC 9728 metadata, a user
// signed in on Toolgate's pages, tools/list and tools/call enforced, step-up on 403, revocation and
// a removed binding effective within the introspection cache bound, a rotated secret → 503.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedErrorV2, type OAuthClientProvider as ProviderV2 } from "@modelcontextprotocol/client";
import { startToolgate, type Harness } from "./helpers/harness";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";
import { AppProvider, readySample, signInInBrowser } from "./helpers/sdk-flow";
import { eventually } from "./helpers/eventually";

const CACHE_MS = 1_000;
const REDIRECT = "http://127.0.0.1:7071/callback";
const USER = { email: "ada@example.test", password: "a long enough password 1" };

let h: Harness;
let sample: SampleServer;
let rs: Awaited<ReturnType<typeof readySample>>;
let mcpUrl: string;
let bindingId: string;
let client: { client_id: string; client_secret: string };
const logged: { level: string; message: string }[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  rs = await readySample(h);
  // The protected server, restarted on the registered port.
  sample = await startSampleServer({
    port: rs.port,
    toolgate: {
      issuer: h.url,
      resourceServerId: rs.id,
      introspectionSecret: rs.secret,
      introspectionCacheMs: CACHE_MS,
      policyRefreshMs: 200,
      scopesSupported: ["notes:read"],
      logger: { error: (message) => logged.push({ level: "error", message }), warn: (message) => logged.push({ level: "warn", message }) },
    },
  });
  mcpUrl = `${sample.url}/mcp`;
  expect(mcpUrl).toBe(rs.resource);
  // An operator's setup: a role with both scopes, a user bound to it, a pre-registered client app.
  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Note takers", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read", "notes:write"] }] });
  const user = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: USER.email, username: "ada", password: USER.password });
  const binding = await h.admin("POST", `/uflow/v2/users/${user.body.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
  expect(binding.status, binding.text).toBe(201);
  bindingId = binding.body.id ?? binding.body.binding_id;
  const app = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, {
    client_name: "Notes desktop",
    kind: "human_app",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code"],
    allowed_scopes: ["notes:read", "notes:write"],
  });
  expect(app.status, app.text).toBe(201);
  client = app.body;
});
afterAll(async () => {
  await sample?.close();
  await h?.close();
});

/** A raw JSON-RPC tools/call with a token, as any HTTP client would send it. */
async function rawCall(token: string | undefined, tool = "list_notes") {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {} } }),
  });
  return { status: res.status, challenge: res.headers.get("www-authenticate"), body: (await res.json()) as any };
}

/** Connects the official client; on UnauthorizedError the user signs in in the browser and the app finishes the flow. */
async function connect(provider: AppProvider): Promise<Client> {
  const attempt = async () => {
    const c = new Client({ name: "notes-desktop", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    return c;
  };
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  await finishSignIn(provider);
  return attempt();
}

/** The user signs in at the URL the SDK asked the app to open; the app hands the code back to the SDK. */
async function finishSignIn(provider: AppProvider): Promise<void> {
  const callback = await signInInBrowser(h, provider.authorizationUrl!, USER.email, USER.password);
  await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth(callback.searchParams.get("code")!);
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
const text = (r: any) => (r.content as { text: string }[])[0]!.text;

describe("toolgate/sdk with the official MCP client", () => {
  it("serves RFC 9728 metadata at both well-known locations with CORS, and RFC 6750 challenges", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await fetch(sample.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.json()).toEqual({ resource: mcpUrl, authorization_servers: [h.url], scopes_supported: ["notes:read"], bearer_methods_supported: ["header"] });
    }
    const pre = await fetch(`${sample.url}/.well-known/oauth-protected-resource/mcp`, { method: "OPTIONS", headers: { origin: "http://inspector.test", "access-control-request-headers": "mcp-protocol-version" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/MCP-Protocol-Version/);

    const prm = `resource_metadata="${sample.url}/.well-known/oauth-protected-resource/mcp"`;
    const none = await rawCall(undefined);
    expect(none.status).toBe(401);
    // No token sent: no error code (RFC 6750 §3.1).
    expect(none.challenge).toBe(`Bearer ${prm}, scope="notes:read"`);
    const bad = await rawCall("not-a-token");
    expect(bad.status).toBe(401);
    expect(bad.challenge).toBe(`Bearer ${prm}, scope="notes:read", error="invalid_token", error_description="the token is malformed"`);
  });

  it("discovers Toolgate, signs the user in, lists and calls only what the token's scopes permit, and steps up on 403", async () => {
    const provider = new AppProvider(REDIRECT, { client_id: client.client_id, client_secret: client.client_secret });
    const c = await connect(provider);
    // The SDK found Toolgate through the metadata and asked for the challenged scope, for this resource.
    expect(provider.authorizationUrl!.origin + provider.authorizationUrl!.pathname).toBe(`${h.url}/oauth/authorize`);
    expect(provider.authorizationUrl!.searchParams.get("resource")).toBe(mcpUrl);
    expect(provider.authorizationUrl!.searchParams.get("scope")).toBe("notes:read");

    expect(await names(c)).toEqual(["list_notes", "read_note", "server_time"]);
    expect(text(await c.callTool({ name: "list_notes", arguments: {} }))).toBe("welcome");

    // Another tool: 403 naming the scopes held plus those needed (MCP step-up).
    const denied = await rawCall(provider.accessToken, "create_note");
    expect(denied.status).toBe(403);
    expect(denied.challenge).toContain('scope="notes:read notes:write", error="insufficient_scope"');
    // The client re-authorizes with that scope on its own; the user allows again.
    await expect(c.callTool({ name: "create_note", arguments: { title: "t", body: "b" } })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get("scope")).toBe("notes:read notes:write");
    await c.close();
    await finishSignIn(provider);
    const stepped = await connect(provider);
    expect(text(await stepped.callTool({ name: "create_note", arguments: { title: "t", body: "b" } }))).toBe("saved t");
    expect(await names(stepped)).toEqual(["create_note", "delete_note", "list_notes", "read_note", "server_time"]);
    await stepped.close();
  });

  it("an unmodified client with no credentials registers itself (RFC 7591) and signs in", async () => {
    const provider = new AppProvider(REDIRECT, undefined);
    const c = await connect(provider);
    // The SDK registered at Toolgate's registration_endpoint: a dcr client of no workspace,
    // connected to this server by its first authorization.
    const registered = provider.clientInformation()!;
    expect(registered.client_id).toMatch(/^tgc_/);
    expect(provider.authorizationUrl!.searchParams.get("client_id")).toBe(registered.client_id);
    expect(await names(c)).toEqual(["list_notes", "read_note", "server_time"]);
    expect(text(await c.callTool({ name: "list_notes", arguments: {} }))).toMatch(/^welcome/);
    await c.close();
    const listed = await h.admin("GET", `/svc/resource-servers/${rs.id}/clients`);
    expect(listed.body.items.find((i: { client_id: string }) => i.client_id === registered.client_id)).toMatchObject({ registration_mode: "dcr", status: "approved" });
  });

  it("a v2 client holding a refresh token steps up too (it re-authorizes with the union of scopes)", async () => {
    // The client an operator gets by default: authorization_code + refresh_token.
    const app = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, { client_name: "Notes v2", kind: "human_app", redirect_uris: [REDIRECT], allowed_scopes: ["notes:read", "notes:write"] });
    expect(app.status, app.text).toBe(201);
    const provider = new AppProvider(REDIRECT, { client_id: app.body.client_id, client_secret: app.body.client_secret });
    const v2 = provider as unknown as ProviderV2;
    const open = async () => {
      const c = new ClientV2({ name: "notes-v2", version: "1.0.0" });
      await c.connect(new TransportV2(new URL(mcpUrl), { authProvider: v2 }));
      return c;
    };
    const signIn = async () => {
      // v2 checks the callback's iss (RFC 9207) before redeeming the code.
      const callback = await signInInBrowser(h, provider.authorizationUrl!, USER.email, USER.password);
      await new TransportV2(new URL(mcpUrl), { authProvider: v2 }).finishAuth(callback.searchParams);
    };
    await expect(open()).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    await signIn();
    expect(provider.tokens()?.refresh_token).toBeTruthy();
    const c = await open();
    expect(await names(c as unknown as Client)).toEqual(["list_notes", "read_note", "server_time"]);
    await expect(c.callTool({ name: "create_note", arguments: { title: "v2", body: "b" } })).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    expect(provider.authorizationUrl!.searchParams.get("scope")?.split(" ").sort()).toEqual(["notes:read", "notes:write"]);
    await c.close();
    await signIn();
    const stepped = await open();
    expect(text(await stepped.callTool({ name: "create_note", arguments: { title: "v2", body: "b" } }))).toBe("saved v2");
    await stepped.close();
  });

  it("a revoked token is refused within the introspection cache bound", async () => {
    const provider = new AppProvider(REDIRECT, { client_id: client.client_id, client_secret: client.client_secret });
    (await connect(provider)).close();
    const token = provider.accessToken;
    expect((await rawCall(token)).status).toBe(200); // cached now
    const revoke = await h.request("POST", "/oauth/revoke", { basic: [client.client_id, client.client_secret], form: { token } });
    expect(revoke.status).toBe(200);
    const revokedAt = Date.now();
    await eventually(async () => (await rawCall(token)).status === 401, "the revoked token refused", CACHE_MS + 2_000);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(CACHE_MS + 2_000);
    expect((await rawCall(token)).challenge).toMatch(/error="invalid_token", error_description="the token is not active/);
  });

  it("a removed role binding takes effect within the cache bound", async () => {
    const provider = new AppProvider(REDIRECT, { client_id: client.client_id, client_secret: client.client_secret });
    (await connect(provider)).close();
    const token = provider.accessToken;
    expect((await rawCall(token)).status).toBe(200);
    expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${bindingId}`)).status).toBeLessThan(300);
    await eventually(async () => [401, 403].includes((await rawCall(token)).status), "the binding's removal enforced", CACHE_MS + 2_000);
  });

  it("policy incomplete (server not ready): every tool is denied with the reason", async () => {
    const rs2 = await h.admin("POST", "/svc/resource-servers", { name: "Not ready", public_base_url: "http://127.0.0.1:9", protected_base_path: "/mcp", scopes_supported: [] });
    const other = await startSampleServer({ toolgate: { issuer: h.url, resourceServerId: rs2.body.id, introspectionSecret: rs2.body.introspection_secret, resource: "http://127.0.0.1:9/mcp" } });
    try {
      const m2m = await h.admin("POST", `/svc/resource-servers/${rs2.body.id}/clients`, { client_name: "bot", kind: "m2m", redirect_uris: [], grant_types: ["client_credentials"], allowed_scopes: [] });
      expect(m2m.status, m2m.text).toBe(201);
      const tok = await h.request("POST", "/oauth/token", { form: { grant_type: "client_credentials", client_id: m2m.body.client_id, client_secret: m2m.body.client_secret } });
      expect(tok.status, tok.text).toBe(200);
      const res = await fetch(`${other.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${tok.body.access_token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "server_time", arguments: {} } }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get("www-authenticate")).toBeNull();
      expect(await res.json()).toEqual({
        error: "access_denied",
        error_description: "the policy is incomplete: the server is not activated yet (state pending_scan); deny every tool until the policy is complete",
      });
      expect(other.guard!.filterTools([{ name: "server_time" }], [])).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("a rotated secret: one clear error naming the cause, callers get 503 (not invalid_token)", async () => {
    const rotate = await h.admin("POST", `/svc/resource-servers/${rs.id}/rotate-introspection-secret`);
    expect(rotate.status, rotate.text).toBe(200);
    await eventually(async () => (await rawCall("whatever")).status === 503, "503 after the secret rotation");
    const answer = await rawCall("whatever");
    expect(answer.body).toEqual({ error: "temporarily_unavailable", error_description: expect.stringContaining("operator has been told") });
    await eventually(async () => (await rawCall(undefined)).status === 503, "503 without a token too", 1_000);
    const errors = logged.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/refused this resource server's credentials \(401 from sdk-policy\): the introspection secret was rotated or the resource server was deleted/);
  });
});
