// End-user sign-in driven by a real OAuth client (oauth4webapi): authorization URL with PKCE and
// RFC 8707 resource, the login and consent forms (followed like a browser: each page's form action
// resolved against the page URL), the callback validated for state and RFC 9207 iss, the code
// exchange, refresh rotation and reuse detection; then introspection as the resource server sees
// it while bindings, groups, end-user state and the client's allowed scopes change, and while
// token families are revoked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { observeQueries } from "../src/storage";
import { REFRESH_GRACE_DEFAULT_S } from "../src/modules/signin";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { OffsetClock } from "./helpers/clocks";
import { browser, claimsOf, formOf, type Page } from "./helpers/signin-flow";

// Every statement, so a test can prove introspection stays free of SQL (registered before the app starts).
const sql: string[] = [];
const stopObserving = observeQueries((q) => sql.push(q.query));

let h: Harness;
// Real time that a test can move past the refresh retry grace, so a reuse is reuse, not a retry
// (test/refresh-rotation.test.ts covers the grace itself).
const clock = new OffsetClock();
const pastTheGrace = () => clock.advance((REFRESH_GRACE_DEFAULT_S + 1) * 1000);
let as: oauth.AuthorizationServer;
let rs: { id: string; introspection_secret: string; resource_url: string };
let client: oauth.Client;
let clientAuth: oauth.ClientAuth;
let roleId: string;
let user: { id: string; email: string; password: string };
const REDIRECT = "http://127.0.0.1/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  h = await startToolgate({ clock });
  const issuer = new URL(h.config.publicUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));

  rs = (
    await h.admin("POST", "/svc/resource-servers", {
      name: "Notes MCP",
      public_base_url: "https://notes.example.test",
      protected_base_path: "/mcp",
      scopes_supported: ["notes:read", "notes:write"],
    })
  ).body;
  const created = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, {
    client_name: "Notes desktop",
    kind: "human_app",
    redirect_uris: [REDIRECT],
    allowed_scopes: ["notes:read", "notes:write"],
  });
  expect(created.status).toBe(201);
  client = { client_id: created.body.client_id };
  clientAuth = oauth.ClientSecretBasic(created.body.client_secret);

  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read"] }] });
  expect(role.status).toBe(201);
  roleId = role.body.id;

  user = { id: "", email: "ada@example.test", password: "ada-password-123" };
  const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: user.email, username: "ada", password: user.password });
  user.id = u.body.id;
});
afterAll(async () => {
  stopObserving();
  await h?.close();
});

interface AppClient {
  name: string;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret: string;
}

async function registerClient(name: string, over: Record<string, unknown> = {}): Promise<AppClient> {
  const created = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, {
    client_name: name,
    kind: "human_app",
    redirect_uris: [REDIRECT],
    allowed_scopes: ["notes:read", "notes:write"],
    ...over,
  });
  expect(created.status).toBe(201);
  return { name, client: { client_id: created.body.client_id }, auth: oauth.ClientSecretBasic(created.body.client_secret), secret: created.body.client_secret };
}

interface Flow {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  /** The callback the browser was sent to (the final 302), when the flow got that far. */
  callback?: URL;
  /** The last page shown, when the flow stopped on a page. */
  last?: Page;
  page?: string;
  status?: number;
}

interface SignInOptions {
  scope?: string;
  port?: number;
  decision?: string;
  password?: string;
  /** Sign in as this user (default: the module's user). */
  as?: { email: string; password: string };
  /** The client (default: the module's client). */
  app?: AppClient;
  /** Leave redirect_uri out of the authorization request (allowed: the client registered exactly one). */
  omitRedirectUri?: boolean;
}

/** The authorization URL of a fresh request (PKCE S256, state, RFC 8707 resource). */
async function authorizationRequest(opts: SignInOptions): Promise<{ url: URL; state: string; codeVerifier: string; redirectUri: string }> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const redirectUri = opts.port ? `http://127.0.0.1:${opts.port}/callback` : REDIRECT;
  const params = new URLSearchParams({
    response_type: "code",
    client_id: (opts.app?.client ?? client).client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    scope: opts.scope ?? "notes:read notes:write",
    resource: rs.resource_url,
    // These tests walk the consent page every time; remembered consent (which skips it) has its
    // own tests in test/sessions.test.ts.
    prompt: "consent",
  });
  if (opts.omitRedirectUri) params.delete("redirect_uri");
  url.search = params.toString();
  return { url, state, codeVerifier, redirectUri };
}

/** Walks the browser part of the flow, following each page's form; returns the callback URL (the 302 Location). */
async function signIn(opts: SignInOptions = {}): Promise<Flow> {
  const b = browser(h.config.publicUrl, h.url);
  const { url, ...flow } = await authorizationRequest(opts);
  const who = opts.as ?? user;
  const loginPage = await b.open(url);
  expect(loginPage.status).toBe(200);
  expect(loginPage.headers.get("x-frame-options")).toBe("DENY");
  expect(loginPage.html).toContain(opts.app?.name ?? "Notes desktop");
  const consentPage = await b.submit(loginPage, { email: who.email, password: opts.password ?? who.password });
  if (consentPage.status === 302) return { ...flow, callback: consentPage.location };
  if (consentPage.status !== 200) return { ...flow, last: consentPage, page: consentPage.html, status: consentPage.status };
  expect(consentPage.html).toContain("127.0.0.1"); // the redirect host is shown before consent
  const done = await b.submit(consentPage, { decision: opts.decision ?? "allow" });
  expect(done.status).toBe(302);
  return { ...flow, callback: done.location, last: consentPage };
}

async function exchange(flow: Flow, app?: AppClient) {
  const c = app?.client ?? client;
  const params = oauth.validateAuthResponse(as, c, flow.callback!, flow.state);
  const response = await oauth.authorizationCodeGrantRequest(as, c, app?.auth ?? clientAuth, params, flow.redirectUri, flow.codeVerifier, {
    ...insecure,
    additionalParameters: { resource: rs.resource_url },
  });
  return oauth.processAuthorizationCodeResponse(as, c, response);
}

/** A raw token request (for parameters oauth4webapi always sends, such as redirect_uri). */
function tokenRequest(app: AppClient, form: Record<string, string>) {
  return h.request("POST", "/oauth/token", { basic: [app.client.client_id, app.secret], form });
}

async function refresh(refreshToken: string, app?: AppClient) {
  const c = app?.client ?? client;
  return oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, app?.auth ?? clientAuth, refreshToken, insecure));
}

async function introspect(token: string, server: oauth.AuthorizationServer = as) {
  const response = await oauth.introspectionRequest(server, { client_id: rs.id }, oauth.ClientSecretBasic(rs.introspection_secret), token, insecure);
  return oauth.processIntrospectionResponse(server, { client_id: rs.id }, response);
}

/** A second Toolgate process on the same database (another instance, or a restart). */
async function secondInstance(): Promise<{ app: App; as: oauth.AuthorizationServer; close(): Promise<void> }> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent") });
  await app.start();
  const http: Server = createHttpServer(app.app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    app,
    as: { ...as, token_endpoint: `${base}/oauth/token`, introspection_endpoint: `${base}/oauth/introspect`, revocation_endpoint: `${base}/oauth/revoke` },
    async close() {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections?.();
      await app.close();
      await db.$disconnect();
    },
  };
}

describe("discovery", () => {
  it("advertises the authorization code grant with PKCE S256 and RFC 9207 iss", () => {
    expect(as.authorization_endpoint).toBe(`${h.config.publicUrl}/oauth/authorize`);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]));
    expect(as.response_types_supported).toEqual(["code"]);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });
});

describe("authorization code flow", () => {
  it("grants no scope the user does not hold (no binding yet)", async () => {
    const flow = await signIn();
    const tokens = await exchange(flow);
    expect(tokens.scope ?? "").toBe(""); // no binding yet: the user holds nothing on the server
  });

  it("signs in, exchanges the code, and introspection follows the user's bindings", async () => {
    const binding = await h.admin("POST", `/uflow/v2/users/${user.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId });
    expect(binding.status).toBe(201);

    const flow = await signIn({ port: 53111 }); // any port on a loopback redirect (RFC 8252 §7.3)
    expect(flow.callback!.searchParams.get("iss")).toBe(h.config.publicUrl);
    expect(flow.callback!.searchParams.get("state")).toBe(flow.state);
    const tokens = await exchange(flow);
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.scope).toBe("notes:read");
    expect(tokens.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString());
    expect(claims).toMatchObject({ sub: user.id, aud: rs.resource_url, client_id: client.client_id, tenant_id: h.workspaceId });

    let info = await introspect(tokens.access_token);
    expect(info).toMatchObject({ active: true, sub: user.id, scope: "notes:read", aud: rs.resource_url });

    // Removing the binding narrows the next introspection without reissuing the token.
    expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${binding.body.id}`)).status).toBe(204);
    info = await introspect(tokens.access_token);
    expect(info.active).toBe(true);
    expect(info.scope).toBe("");

    // Through a group: add the user to a group bound to the role, then remove them.
    const group = (await h.admin("POST", "/uflow/v2/groups", { name: "readers" })).body;
    expect((await h.admin("POST", `/uflow/v2/groups/${group.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId })).status).toBe(201);
    expect((await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: user.id })).status).toBe(201);
    expect((await introspect(tokens.access_token)).scope).toBe("notes:read");
    expect((await h.admin("DELETE", `/uflow/v2/groups/${group.id}/members/${user.id}`)).status).toBe(204);
    expect((await introspect(tokens.access_token)).scope).toBe("");
    expect((await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: user.id })).status).toBe(201);

    // A suspended end user holds nothing: the token is inactive; reactivation restores it.
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${user.id}/suspend`, { reason: "abuse" })).status).toBe(200);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${user.id}/reactivate`)).status).toBe(200);
    expect((await introspect(tokens.access_token)).scope).toBe("notes:read");

    // Refresh rotates; reusing the old refresh token revokes the whole chain.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, { ...insecure, additionalParameters: { resource: rs.resource_url } }),
    );
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe("notes:read");
    pastTheGrace();
    const reuse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });
    const afterReuse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure);
    expect(afterReuse.status).toBe(400); // the successor died with the chain
  });

  it("makes codes single-use and binds them to the PKCE verifier and redirect URI", async () => {
    const flow = await signIn();
    const params = oauth.validateAuthResponse(as, client, flow.callback!, flow.state);
    const bad = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, flow.redirectUri, oauth.generateRandomCodeVerifier(), insecure);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid_grant" });

    const flow2 = await signIn();
    const params2 = oauth.validateAuthResponse(as, client, flow2.callback!, flow2.state);
    const wrongRedirect = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params2, "http://127.0.0.1/other", flow2.codeVerifier, insecure);
    expect(wrongRedirect.status).toBe(400);

    const flow3 = await signIn();
    await exchange(flow3);
    const params3 = oauth.validateAuthResponse(as, client, flow3.callback!, flow3.state);
    const replay = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params3, flow3.redirectUri, flow3.codeVerifier, insecure);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("sends denial back to the client with state and iss", async () => {
    const flow = await signIn({ decision: "deny" });
    expect(flow.callback!.searchParams.get("error")).toBe("access_denied");
    expect(flow.callback!.searchParams.get("state")).toBe(flow.state);
    expect(flow.callback!.searchParams.get("iss")).toBe(h.config.publicUrl);
  });

  it("shows the login page again for a wrong password, and its form still leads to consent", async () => {
    const flow = await signIn({ password: "wrong-password" });
    expect(flow.status).toBe(401);
    expect(flow.page).toContain("Invalid email or password");
    // The re-shown page is served at /oauth/authorize/login; its form must still post there.
    const b = browser(h.config.publicUrl, h.url);
    expect(formOf(flow.last!).action.href).toBe(`${h.config.publicUrl}/oauth/authorize/login`);
    const consent = await b.submit(flow.last!, { email: user.email, password: user.password });
    expect(consent.status).toBe(200);
    expect(formOf(consent).action.href).toBe(`${h.config.publicUrl}/oauth/authorize/consent`);
    const done = await b.submit(consent, { decision: "allow" });
    expect(done.status).toBe(302);
    const tokens = await exchange({ ...flow, callback: done.location });
    expect(tokens.access_token).toBeTruthy();
  });

  it("a sign-in page allows one password attempt: its ticket cannot be posted again, the new page's can", async () => {
    const b = browser(h.config.publicUrl, h.url);
    const { url } = await authorizationRequest({});
    const loginPage = await b.open(url);
    const wrong = await b.submit(loginPage, { email: user.email, password: "wrong-password" });
    expect(wrong.status).toBe(401);
    // The first page's ticket is spent, even with the right password now (no repeated guessing on one ticket).
    const replay = await b.submit(loginPage, { email: user.email, password: user.password });
    expect(replay.status).toBe(400);
    expect(replay.html).toContain("This sign-in page has already been used. Start again from the application.");
    const again = await b.submit(wrong, { email: user.email, password: user.password });
    expect(again.status).toBe(200);
    expect(formOf(again).action.href).toBe(`${h.config.publicUrl}/oauth/authorize/consent`);
    // A right password spends the ticket too.
    expect((await b.submit(wrong, { email: user.email, password: user.password })).status).toBe(400);
  });

  it("signs in only accounts of the server's workspace: the same email in another workspace is another account", async () => {
    const other = await h.createWorkspace(`signin-other-${Date.now()}@example.test`);
    const twin = await h.request("POST", `/uflow/v2/tenants/${other.workspaceId}/users`, {
      token: other.token,
      json: { email: user.email, username: "ada-elsewhere", password: "another-workspace-password" },
    });
    expect(twin.status).toBe(201);
    expect(twin.body.id).not.toBe(user.id);
    // The other workspace's password does not sign in here; ours still does.
    const refused = await signIn({ password: "another-workspace-password" });
    expect(refused.status).toBe(401);
    expect(refused.page).toContain("Invalid email or password");
    expect((await signIn()).callback?.searchParams.get("code")).toBeTruthy();
  });

  it("posts every form to an absolute action under the issuer's path", async () => {
    const b = browser(h.config.publicUrl, h.url);
    const { url } = await authorizationRequest({});
    const login = await b.open(url);
    expect(/action="([^"]*)"/.exec(login.html)![1]).toBe("/oauth/authorize/login");
    const consent = await b.submit(login, { email: user.email, password: user.password });
    expect(/action="([^"]*)"/.exec(consent.html)![1]).toBe("/oauth/authorize/consent");
  });

  it("never redirects to an unregistered redirect URI, and requires PKCE S256", async () => {
    const base = { response_type: "code", client_id: client.client_id, state: "s" };
    const unregistered = await fetch(`${h.url}/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: "https://evil.example/cb", code_challenge: "x".repeat(43), code_challenge_method: "S256" })}`, { redirect: "manual" });
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers.get("location")).toBeNull();

    const noPkce = await fetch(`${h.url}/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: REDIRECT })}`, { redirect: "manual" });
    expect(noPkce.status).toBe(302);
    const loc = new URL(noPkce.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_request");
    expect(loc.searchParams.get("iss")).toBe(h.config.publicUrl);

    const plain = await fetch(`${h.url}/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: REDIRECT, code_challenge: "x".repeat(43), code_challenge_method: "plain" })}`, { redirect: "manual" });
    expect(new URL(plain.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");

    const unknownResource = await fetch(
      `${h.url}/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: REDIRECT, code_challenge: "x".repeat(43), code_challenge_method: "S256", resource: "https://unknown.example.test/" })}`,
      { redirect: "manual" },
    );
    expect(new URL(unknownResource.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });
});

describe("first-time-user grant", () => {
  it("binds a user's first sign-in to the policy's default role, once, and leaves bindings alone after a change", async () => {
    const policy = await h.admin("PUT", `/svc/resource-servers/${rs.id}/access-policy`, { enabled: true, default_role_id: roleId, first_time_grant: "default_role" });
    expect(policy.status).toBe(200);
    const newcomer = { email: "grace@example.test", password: "grace-password-1" };
    const created = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { ...newcomer, username: "grace" });
    const saved = user;
    user = { id: created.body.id, ...newcomer };
    try {
      const tokens = await exchange(await signIn());
      expect(tokens.scope).toBe("notes:read");
      const access = await h.admin("GET", `/uflow/v2/users/${user.id}/effective-access`);
      expect(access.body).toHaveLength(1);
      expect(access.body[0]).toMatchObject({ role_id: roleId, subject: "user", scope_type: "resource_server", scope_id: rs.id });
      await exchange(await signIn()); // a second sign-in adds nothing
      expect((await h.admin("GET", `/uflow/v2/users/${user.id}/effective-access`)).body).toHaveLength(1);
      // Disabling the policy leaves the existing binding untouched.
      await h.admin("PUT", `/svc/resource-servers/${rs.id}/access-policy`, { enabled: false, default_role_id: null, first_time_grant: "default_role" });
      expect((await h.admin("GET", `/uflow/v2/users/${user.id}/effective-access`)).body).toHaveLength(1);
    } finally {
      user = saved;
    }
  });
});

describe("token families (refresh-token chains and their access tokens)", () => {
  let lin: { id: string; email: string; password: string };
  beforeAll(async () => {
    lin = { id: "", email: "lin@example.test", password: "lin-password-123" };
    lin.id = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: lin.email, username: "lin", password: lin.password })).body.id;
    const editor = await h.admin("POST", "/svc/authmgr/roles", { name: "editor", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read", "notes:write"] }] });
    expect(editor.status).toBe(201);
    expect((await h.admin("POST", `/uflow/v2/users/${lin.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: editor.body.id })).status).toBe(201);
  });

  it("refresh-token reuse deactivates the access tokens of the whole chain, at once, with no SQL on introspection", async () => {
    const app = await registerClient("Families reuse");
    const tokens = await exchange(await signIn({ as: lin, app }), app);
    const fid = claimsOf(tokens.access_token).fid;
    expect(typeof fid).toBe("string");
    const refreshed = await refresh(tokens.refresh_token!, app);
    expect(claimsOf(refreshed.access_token).fid).toBe(fid); // same chain, same family
    expect((await introspect(tokens.access_token)).active).toBe(true);
    expect((await introspect(refreshed.access_token)).active).toBe(true);

    // The stolen (already rotated) refresh token is presented again: the chain is revoked...
    pastTheGrace();
    const reuse = await oauth.refreshTokenGrantRequest(as, app.client, app.auth, tokens.refresh_token!, insecure);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });
    // ...and with it the access token the thief obtained, and every other one of the chain.
    sql.length = 0;
    expect(await introspect(refreshed.access_token)).toEqual({ active: false });
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    expect(sql).toEqual([]);
    expect((await oauth.refreshTokenGrantRequest(as, app.client, app.auth, refreshed.refresh_token!, insecure)).status).toBe(400);

    // Another sign-in is another family, untouched.
    const fresh = await exchange(await signIn({ as: lin, app }), app);
    expect(claimsOf(fresh.access_token).fid).not.toBe(fid);
    expect((await introspect(fresh.access_token)).active).toBe(true);
  });

  it("RFC 7009 revocation of a refresh token deactivates its access tokens, here, in other instances and after a restart", async () => {
    const app = await registerClient("Families revoke");
    const tokens = await exchange(await signIn({ as: lin, app }), app);
    const refreshed = await refresh(tokens.refresh_token!, app);
    const other = await secondInstance();
    try {
      expect((await introspect(refreshed.access_token, other.as)).active).toBe(true);
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, app.client, app.auth, refreshed.refresh_token!, { ...insecure, additionalParameters: { token_type_hint: "refresh_token" } }));
      expect(await introspect(tokens.access_token)).toEqual({ active: false });
      expect(await introspect(refreshed.access_token)).toEqual({ active: false });
      expect((await oauth.refreshTokenGrantRequest(as, app.client, app.auth, refreshed.refresh_token!, insecure)).status).toBe(400);

      // The other instance learns it from the change bus.
      await other.app.catchUp();
      expect(await introspect(refreshed.access_token, other.as)).toEqual({ active: false });
    } finally {
      await other.close();
    }
    // A restart loads it from the database.
    const restarted = await secondInstance();
    try {
      expect(restarted.app.services.oauth.revocations.isFamilyRevoked(claimsOf(tokens.access_token).fid as string)).toBe(true);
      expect(await introspect(tokens.access_token, restarted.as)).toEqual({ active: false });
    } finally {
      await restarted.close();
    }
  });

  it("a replayed code deactivates the tokens it minted, also for a client without refresh tokens", async () => {
    for (const grant_types of [["authorization_code", "refresh_token"], ["authorization_code"]]) {
      const app = await registerClient(`Families replay ${grant_types.length}`, { grant_types });
      const flow = await signIn({ as: lin, app });
      const tokens = await exchange(flow, app);
      expect(tokens.refresh_token === undefined).toBe(grant_types.length === 1);
      expect((await introspect(tokens.access_token)).active).toBe(true);
      const params = oauth.validateAuthResponse(as, app.client, flow.callback!, flow.state);
      const replay = await oauth.authorizationCodeGrantRequest(as, app.client, app.auth, params, flow.redirectUri, flow.codeVerifier, insecure);
      expect(replay.status).toBe(400);
      expect(await introspect(tokens.access_token)).toEqual({ active: false });
      if (tokens.refresh_token) expect((await oauth.refreshTokenGrantRequest(as, app.client, app.auth, tokens.refresh_token, insecure)).status).toBe(400);
    }
  });

  it("user tokens and refreshes are bounded by the client's current allowed scopes", async () => {
    const app = await registerClient("Narrowed app");
    const tokens = await exchange(await signIn({ as: lin, app }), app);
    expect(tokens.scope).toBe("notes:read notes:write");
    expect((await introspect(tokens.access_token)).scope).toBe("notes:read notes:write");

    expect((await h.admin("PATCH", `/svc/resource-servers/${rs.id}/clients/${app.client.client_id}`, { allowed_scopes: ["notes:read"] })).status).toBe(200);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, scope: "notes:read" });
    const refreshed = await refresh(tokens.refresh_token!, app);
    expect(refreshed.scope).toBe("notes:read");
    expect(claimsOf(refreshed.access_token).scope).toBe("notes:read");

    expect((await h.admin("PATCH", `/svc/resource-servers/${rs.id}/clients/${app.client.client_id}`, { allowed_scopes: [] })).status).toBe(200);
    expect(await introspect(refreshed.access_token)).toMatchObject({ active: true, scope: "" });
    expect((await refresh(refreshed.refresh_token!, app)).scope ?? "").toBe("");

    // Widening again never exceeds what the token (or the original consent) carried.
    await h.admin("PATCH", `/svc/resource-servers/${rs.id}/clients/${app.client.client_id}`, { allowed_scopes: ["notes:read", "notes:write"] });
    expect((await introspect(tokens.access_token)).scope).toBe("notes:read notes:write");
    expect((await introspect(refreshed.access_token)).scope).toBe("notes:read");
  });
});

describe("code and consent binding", () => {
  it("a code presented by another client is refused without using it up", async () => {
    const owner = await registerClient("Code owner");
    const thief = await registerClient("Code thief");
    const flow = await signIn({ app: owner });
    const params = oauth.validateAuthResponse(as, owner.client, flow.callback!, flow.state);
    const stolen = await oauth.authorizationCodeGrantRequest(as, thief.client, thief.auth, params, flow.redirectUri, flow.codeVerifier, insecure);
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ error: "invalid_grant" });
    // The rightful client still redeems it, and its tokens were not revoked as a "replay".
    const tokens = await exchange(flow, owner);
    expect((await introspect(tokens.access_token)).active).toBe(true);
    expect((await refresh(tokens.refresh_token!, owner)).access_token).toBeTruthy();
  });

  it("a consent page posted twice mints one code only", async () => {
    const b = browser(h.config.publicUrl, h.url);
    const { url, ...flow } = await authorizationRequest({});
    const consent = await b.submit(await b.open(url), { email: user.email, password: user.password });
    expect(consent.status).toBe(200);
    const first = await b.submit(consent, { decision: "allow" });
    expect(first.status).toBe(302);
    expect(first.location!.searchParams.get("code")).toBeTruthy();
    const again = await b.submit(consent, { decision: "allow" });
    expect(again.status).toBe(400);
    expect(again.location).toBeUndefined();
    expect(again.html).toContain("already been used");
    // The first code is unaffected.
    const tokens = await exchange({ ...flow, callback: first.location });
    expect((await introspect(tokens.access_token)).active).toBe(true);
  });

  it("redirect_uri omitted from the authorization request may be omitted from the token request (RFC 6749 §4.1.3)", async () => {
    const app = await registerClient("One redirect");
    const flow = await signIn({ app, omitRedirectUri: true });
    expect(`${flow.callback!.origin}${flow.callback!.pathname}`).toBe(REDIRECT); // the one registered URI
    const params = oauth.validateAuthResponse(as, app.client, flow.callback!, flow.state);
    const r = await tokenRequest(app, { grant_type: "authorization_code", code: params.get("code")!, code_verifier: flow.codeVerifier });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).toBeTruthy();
    expect((await introspect(r.body.access_token)).active).toBe(true);

    // Sent anyway, it must be the URI the code went to.
    const flow2 = await signIn({ app, omitRedirectUri: true });
    const code2 = flow2.callback!.searchParams.get("code")!;
    const wrong = await tokenRequest(app, { grant_type: "authorization_code", code: code2, code_verifier: flow2.codeVerifier, redirect_uri: "http://127.0.0.1/other" });
    expect(wrong.body).toMatchObject({ error: "invalid_grant" });
    const flow3 = await signIn({ app, omitRedirectUri: true });
    const right = await tokenRequest(app, { grant_type: "authorization_code", code: flow3.callback!.searchParams.get("code")!, code_verifier: flow3.codeVerifier, redirect_uri: REDIRECT });
    expect(right.status).toBe(200);

    // When the authorization request carried redirect_uri, the token request must repeat it; a
    // request without it fails without using the code up.
    const sent = await signIn({ app });
    const code = sent.callback!.searchParams.get("code")!;
    const missing = await tokenRequest(app, { grant_type: "authorization_code", code, code_verifier: sent.codeVerifier });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_grant" });
    const repeated = await tokenRequest(app, { grant_type: "authorization_code", code, code_verifier: sent.codeVerifier, redirect_uri: REDIRECT });
    expect(repeated.status).toBe(200);
  });
});

describe("issuer with a path prefix", () => {
  it("the pages' forms post under the issuer's path, so the flow completes behind a prefix-stripping proxy", async () => {
    const prefixed = await startToolgate({ env: { TOOLGATE_PUBLIC_URL: "https://auth.example.test/idp" } });
    try {
      const server = (
        await prefixed.admin("POST", "/svc/resource-servers", { name: "Prefixed", public_base_url: "https://p.example.test", protected_base_path: "/mcp", scopes_supported: ["p:read"] })
      ).body;
      const app = (await prefixed.admin("POST", `/svc/resource-servers/${server.id}/clients`, { client_name: "P", kind: "human_app", redirect_uris: [REDIRECT] })).body;
      const metadata = (await prefixed.request("GET", "/.well-known/oauth-authorization-server")).body;
      expect(metadata.authorization_endpoint).toBe("https://auth.example.test/idp/oauth/authorize");

      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(metadata.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state: "st",
      }).toString();
      const b = browser(prefixed.config.publicUrl, prefixed.url);
      const login = await b.open(url);
      expect(login.status).toBe(200);
      expect(formOf(login).action.href).toBe("https://auth.example.test/idp/oauth/authorize/login");
      const consent = await b.submit(login, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      expect(consent.status).toBe(200);
      expect(formOf(consent).action.href).toBe("https://auth.example.test/idp/oauth/authorize/consent");
      const done = await b.submit(consent, { decision: "allow" });
      expect(done.status).toBe(302);
      expect(done.location!.searchParams.get("iss")).toBe("https://auth.example.test/idp");
      const token = await prefixed.request("POST", "/oauth/token", {
        basic: [app.client_id, app.client_secret],
        form: { grant_type: "authorization_code", code: done.location!.searchParams.get("code")!, code_verifier: verifier, redirect_uri: REDIRECT },
      });
      expect(token.status).toBe(200);
    } finally {
      await prefixed.close();
    }
  });
});
