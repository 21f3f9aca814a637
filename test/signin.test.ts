// End-user sign-in driven by a real OAuth client (oauth4webapi): authorization URL with PKCE and
// RFC 8707 resource, the login and consent forms, the callback validated for state and RFC 9207
// iss, the code exchange, refresh rotation and reuse detection; then introspection as the
// resource server sees it while bindings, groups and end-user state change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
let as: oauth.AuthorizationServer;
let rs: { id: string; introspection_secret: string; resource_url: string };
let client: oauth.Client;
let clientAuth: oauth.ClientAuth;
let roleId: string;
let user: { id: string; email: string; password: string };
const REDIRECT = "http://127.0.0.1/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  h = await startToolgate();
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
afterAll(async () => h?.close());

function ticketOf(html: string): string {
  const m = /name="ticket" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no ticket in page:\n${html}`);
  return m[1]!;
}

/** Walks the browser part of the flow; returns the callback URL (the 302 Location). */
async function signIn(opts: { scope?: string; port?: number; decision?: string; password?: string } = {}) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const redirectUri = opts.port ? `http://127.0.0.1:${opts.port}/callback` : REDIRECT;
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    scope: opts.scope ?? "notes:read notes:write",
    resource: rs.resource_url,
  }).toString();
  const loginPage = await fetch(url, { redirect: "manual" });
  expect(loginPage.status).toBe(200);
  expect(loginPage.headers.get("x-frame-options")).toBe("DENY");
  const loginHtml = await loginPage.text();
  expect(loginHtml).toContain("Notes desktop");
  const consentPage = await fetch(`${h.url}/oauth/authorize/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ticket: ticketOf(loginHtml), email: user.email, password: opts.password ?? user.password }),
    redirect: "manual",
  });
  if (consentPage.status === 302) return { callback: new URL(consentPage.headers.get("location")!), state, codeVerifier, redirectUri };
  const consentHtml = await consentPage.text();
  if (consentPage.status !== 200) return { page: consentHtml, status: consentPage.status, state, codeVerifier, redirectUri };
  expect(consentHtml).toContain("127.0.0.1"); // the redirect host is shown before consent
  const done = await fetch(`${h.url}/oauth/authorize/consent`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ticket: ticketOf(consentHtml), decision: opts.decision ?? "allow" }),
    redirect: "manual",
  });
  expect(done.status).toBe(302);
  return { callback: new URL(done.headers.get("location")!), state, codeVerifier, redirectUri };
}

async function exchange(flow: { callback?: URL; state: string; codeVerifier: string; redirectUri: string }) {
  const params = oauth.validateAuthResponse(as, client, flow.callback!, flow.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, flow.redirectUri, flow.codeVerifier, {
    ...insecure,
    additionalParameters: { resource: rs.resource_url },
  });
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

async function introspect(token: string) {
  const response = await oauth.introspectionRequest(as, { client_id: rs.id }, oauth.ClientSecretBasic(rs.introspection_secret), token, insecure);
  return oauth.processIntrospectionResponse(as, { client_id: rs.id }, response);
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

  it("shows the login page again for a wrong password", async () => {
    const flow = await signIn({ password: "wrong-password" });
    expect(flow.status).toBe(401);
    expect(flow.page).toContain("Invalid email or password");
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
