// Toolgate as an OpenID Provider, driven by a real relying party (openid-client; oauth4webapi for
// the refusals it must make): discovery, code + PKCE + nonce, ID token validation for both
// algorithms, userinfo, refresh, RP-initiated logout; the /oauth2/* aliases; the MCP SDK's OIDC
// metadata schema against our discovery document.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as client from "openid-client";
import * as oauth from "oauth4webapi";
import { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { startToolgate, type Harness } from "./helpers/harness";
import { browser, claimsOf, setUpSignIn } from "./helpers/signin-flow";

let h: Harness;
let app: Awaited<ReturnType<typeof setUpSignIn>>;
const REDIRECT = "http://127.0.0.1:7777/callback";
const LOGGED_OUT = "https://app.example.test/signed-out";
const user = { email: "olive@example.test", password: "olive-password-1" };

beforeAll(async () => {
  h = await startToolgate();
  app = await setUpSignIn(h.url, h.adminToken, { name: "Notes", scopes: ["notes:read"], users: [user], redirectUri: REDIRECT });
  const patched = await h.admin("PATCH", `/svc/resource-servers/${app.serverId}/clients/${app.clientId}`, { post_logout_redirect_uris: [LOGGED_OUT] });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ post_logout_redirect_uris: [LOGGED_OUT], id_token_signed_response_alg: "RS256" });
});
afterAll(async () => h?.close());

/** A relying party configured from our discovery document (http: the test server is plain HTTP on loopback). */
async function rp(metadata: Partial<client.ClientMetadata> = {}, clientId = app.clientId, secret = app.clientSecret): Promise<client.Configuration> {
  return client.discovery(new URL(h.url), clientId, { client_secret: secret, ...metadata }, client.ClientSecretBasic(secret), { execute: [client.allowInsecureRequests] });
}

/** Through the browser: sign in, allow; the callback URL the RP receives. */
async function authorize(config: client.Configuration, extra: Record<string, string> = {}, b = browser(h.url, h.url, { cookies: true })) {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: "openid profile email notes:read",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    nonce,
    state,
    resource: app.resource,
    ...extra,
  });
  let page = await b.open(url);
  if (page.status === 200 && page.html.includes('name="password"')) page = await b.submit(page, user);
  if (page.status === 200 && page.html.includes('value="allow"')) page = await b.submit(page, { decision: "allow" });
  expect(page.status, page.html).toBe(302);
  return { callback: page.location!, verifier, nonce, state, browser: b };
}

describe("discovery", () => {
  it("serves a complete OpenID Connect Discovery document, and keeps the RFC 8414 document as it was", async () => {
    const oidc = (await h.request("GET", "/.well-known/openid-configuration")).body;
    const plain = (await h.request("GET", "/.well-known/oauth-authorization-server")).body;
    // OIDC Discovery §3 REQUIRED members (no implicit flow: token_endpoint is required too).
    for (const field of ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported"]) {
      expect(oidc[field], field).toBeDefined();
    }
    expect(oidc).toMatchObject({
      issuer: h.url,
      userinfo_endpoint: `${h.url}/userinfo`,
      end_session_endpoint: `${h.url}/oauth/logout`,
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256", "ES256"],
      scopes_supported: ["openid", "profile", "email"],
      request_uri_parameter_supported: false,
      code_challenge_methods_supported: ["S256"],
      prompt_values_supported: ["none", "login", "consent"],
    });
    expect(oidc.claims_supported).toEqual(expect.arrayContaining(["sub", "auth_time", "nonce", "amr", "acr", "email", "email_verified"]));
    // The MCP SDK's schemas: the OIDC document parses as OIDC metadata; the RFC 8414 one does not
    // (it lacks subject_types_supported and id_token_signing_alg_values_supported) but parses as OAuth.
    expect(OpenIdProviderDiscoveryMetadataSchema.safeParse(oidc).success).toBe(true);
    expect(OpenIdProviderDiscoveryMetadataSchema.safeParse(plain).success).toBe(false);
    expect(OAuthMetadataSchema.safeParse(plain).success).toBe(true);
    expect(plain.userinfo_endpoint).toBeUndefined();
    expect(plain.id_token_signing_alg_values_supported).toBeUndefined();
    const { userinfo_endpoint, end_session_endpoint, ...rest } = oidc;
    expect(userinfo_endpoint && end_session_endpoint).toBeTruthy();
    for (const [k, v] of Object.entries(plain)) expect(rest[k], k).toEqual(v);
  });
});

describe("code flow with a real relying party", () => {
  it("RS256 (the default): ID token, userinfo, refresh with a new ID token", async () => {
    const config = await rp();
    const { callback, verifier, nonce, state } = await authorize(config);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true });
    const header = JSON.parse(Buffer.from(tokens.id_token!.split(".")[0]!, "base64url").toString());
    expect(header).toMatchObject({ alg: "RS256", typ: "JWT" });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: h.url, sub: app.userIds[0], aud: app.clientId, azp: app.clientId, nonce, amr: ["pwd"], acr: "urn:toolgate:acr:1fa" });
    for (const c of ["exp", "iat", "auth_time", "at_hash", "sid"]) expect(claims[c], c).toBeDefined();
    expect(tokens.scope!.split(" ").sort()).toEqual(["email", "notes:read", "openid", "profile"]);
    // The access token is for the MCP server; introspection there shows its scope without openid's.
    const introspected = await h.request("POST", "/oauth/introspect", { basic: [app.serverId, app.introspectionSecret], form: { token: tokens.access_token } });
    expect(introspected.body).toMatchObject({ active: true, scope: "notes:read", aud: app.resource });

    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toEqual({ sub: app.userIds[0], email: user.email, email_verified: false, preferred_username: expect.any(String), updated_at: expect.any(Number) });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const again = refreshed.claims()!;
    expect(again).toMatchObject({ iss: h.url, sub: claims.sub, aud: app.clientId, auth_time: claims.auth_time, sid: claims.sid, amr: ["pwd"] });
    expect(again.nonce).toBeUndefined(); // OIDC Core §12.2: the nonce belongs to the authentication request
    expect(refreshed.id_token).not.toBe(tokens.id_token);
  });

  it("ES256 for a client that registered it (id_token_signed_response_alg)", async () => {
    const es = await setUpSignIn(h.url, h.adminToken, { name: "Notes ES", scopes: ["notes:read"], users: [], redirectUri: REDIRECT });
    await h.admin("PATCH", `/svc/resource-servers/${es.serverId}/clients/${es.clientId}`, { id_token_signed_response_alg: "ES256" });
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "notes-es-reader", grants: [{ resource_server_id: es.serverId, scope_ids: ["notes:read"] }] });
    await h.admin("POST", `/uflow/v2/users/${app.userIds[0]}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
    const config = await rp({ id_token_signed_response_alg: "ES256" }, es.clientId, es.clientSecret);
    const saved = app;
    app = { ...app, ...es, userIds: saved.userIds };
    try {
      const { callback, verifier, nonce, state } = await authorize(config);
      const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true });
      expect(JSON.parse(Buffer.from(tokens.id_token!.split(".")[0]!, "base64url").toString()).alg).toBe("ES256");
      expect(tokens.claims()).toMatchObject({ aud: es.clientId, nonce });
    } finally {
      app = saved;
    }
  });

  it("the RP refuses a wrong nonce, another audience and an unexpected algorithm", async () => {
    const config = await rp();
    const first = await authorize(config);
    const wrongNonce = await client.authorizationCodeGrant(config, first.callback, { pkceCodeVerifier: first.verifier, expectedNonce: "another-nonce", expectedState: first.state }).catch((e: Error) => e);
    expect(wrongNonce).toBeInstanceOf(Error);
    // oauth4webapi's claim comparison error names the claim (error.cause.cause.claim).
    const cause = (wrongNonce as Error & { cause?: Error & { code?: string; cause?: { claim?: string } } }).cause;
    expect(cause?.code).toBe("OAUTH_JWT_CLAIM_COMPARISON_FAILED");
    expect(cause?.cause?.claim).toBe("nonce");

    // The token response of our client, read by a relying party that is another client: refused.
    const as = await oauth.processDiscoveryResponse(new URL(h.url), await oauth.discoveryRequest(new URL(h.url), { algorithm: "oidc", [oauth.allowInsecureRequests]: true }));
    const second = await authorize(config);
    const params = oauth.validateAuthResponse(as, { client_id: app.clientId }, second.callback, second.state);
    const response = await oauth.authorizationCodeGrantRequest(as, { client_id: app.clientId }, oauth.ClientSecretBasic(app.clientSecret), params, REDIRECT, second.verifier, { [oauth.allowInsecureRequests]: true });
    const body = await response.json();
    expect(body.id_token).toBeTruthy();
    const replay = () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
    await expect(oauth.processAuthorizationCodeResponse(as, { client_id: "someone-else" }, replay(), { expectedNonce: second.nonce })).rejects.toThrow(/aud/);
    // A relying party that registered ES256 gets an RS256 ID token: refused.
    await expect(oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId, id_token_signed_response_alg: "ES256" }, replay(), { expectedNonce: second.nonce })).rejects.toThrow(/alg/);
    // The genuine RP accepts it.
    const ok = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, replay(), { expectedNonce: second.nonce });
    expect(oauth.getValidatedIdTokenClaims(ok)).toMatchObject({ aud: app.clientId, nonce: second.nonce });
  });
});

describe("userinfo errors (RFC 6750 §3.1)", () => {
  it("answers each failure with its challenge", async () => {
    const none = await h.request("GET", "/userinfo");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="toolgate"');
    const garbage = await h.request("GET", "/userinfo", { token: "not-a-token" });
    expect(garbage.status).toBe(401);
    expect(garbage.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // An access token without openid: insufficient_scope.
    const config = await rp();
    const flow = await authorize(config, { scope: "notes:read" });
    const plain = await client.authorizationCodeGrant(config, flow.callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    expect(plain.id_token).toBeUndefined(); // no openid: no ID token
    const forbidden = await h.request("GET", "/userinfo", { token: plain.access_token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("www-authenticate")).toContain('error="insufficient_scope", error_description="the access token was not issued with scope openid", scope="openid"');
    // POST with the token in the form, and the same token twice: invalid_request.
    const full = await authorize(config, { scope: "openid" });
    const tokens = await client.authorizationCodeGrant(config, full.callback, { pkceCodeVerifier: full.verifier, expectedState: full.state, expectedNonce: full.nonce });
    const posted = await h.request("POST", "/userinfo", { form: { access_token: tokens.access_token } });
    expect(posted.status).toBe(200);
    expect(posted.body).toEqual({ sub: app.userIds[0] }); // openid alone: no profile, no email
    const twice = await h.request("POST", "/userinfo", { token: tokens.access_token, form: { access_token: tokens.access_token } });
    expect(twice.status).toBe(400);
    expect(twice.headers.get("www-authenticate")).toContain('error="invalid_request"');
    // A revoked token.
    await h.request("POST", "/oauth/revoke", { basic: [app.clientId, app.clientSecret], form: { token: tokens.access_token } });
    expect((await h.request("GET", "/userinfo", { token: tokens.access_token })).status).toBe(401);
  });
});

describe("RP-initiated logout", () => {
  it("ends the session named by id_token_hint and returns to a registered URI; prompt=none then gets login_required", async () => {
    const config = await rp();
    const flow = await authorize(config);
    const tokens = await client.authorizationCodeGrant(config, flow.callback, { pkceCodeVerifier: flow.verifier, expectedNonce: flow.nonce, expectedState: flow.state });
    // The session skips the password now.
    const silent = await authorize(config, { prompt: "none" }, flow.browser);
    expect(silent.callback.searchParams.get("code")).toBeTruthy();

    const end = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGGED_OUT, state: "bye" });
    const out = await flow.browser.open(end);
    expect(out.status).toBe(302);
    expect(out.location!.href).toBe(`${LOGGED_OUT}?state=bye`);
    expect(flow.browser.jar.size).toBe(0); // the cookie is cleared

    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: "openid", code_challenge: await client.calculatePKCECodeChallenge("x".repeat(43)), code_challenge_method: "S256", prompt: "none", state: "s", resource: app.resource });
    const after = await flow.browser.open(url);
    expect(after.status).toBe(302);
    expect(after.location!.searchParams.get("error")).toBe("login_required");
    expect(after.location!.searchParams.get("state")).toBe("s");
  });

  it("refuses an unregistered post_logout_redirect_uri, and asks before ending a session the hint does not name", async () => {
    const config = await rp();
    const flow = await authorize(config);
    const tokens = await client.authorizationCodeGrant(config, flow.callback, { pkceCodeVerifier: flow.verifier, expectedNonce: flow.nonce, expectedState: flow.state });
    const evil = await flow.browser.open(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: "https://evil.example/" }));
    expect(evil.status).toBe(400);
    expect(evil.location).toBeUndefined();
    // No hint: a confirmation page (a cross-site link cannot sign the person out by itself).
    const ask = await flow.browser.open(new URL(`${h.url}/oauth/logout`));
    expect(ask.status).toBe(200);
    expect(ask.html).toContain("Sign out?");
    expect(flow.browser.jar.size).toBe(1);
    const done = await flow.browser.submit(ask, { decision: "logout" });
    expect(done.status).toBe(200);
    expect(done.html).toContain("You are signed out");
    expect(flow.browser.jar.size).toBe(0);
  });
});

describe("client metadata", () => {
  it("dynamic registration accepts post_logout_redirect_uris and id_token_signed_response_alg (echoed), and refuses bad ones naming the field", async () => {
    const ok = await h.request("POST", "/oauth/register", {
      json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", post_logout_redirect_uris: [LOGGED_OUT], id_token_signed_response_alg: "ES256" },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ post_logout_redirect_uris: [LOGGED_OUT], id_token_signed_response_alg: "ES256" });
    const badAlg = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], id_token_signed_response_alg: "none" } });
    expect(badAlg.status).toBe(400);
    expect(badAlg.body).toEqual({ error: "invalid_client_metadata", error_description: "id_token_signed_response_alg: not supported: must be one of RS256, ES256" });
    const badUri = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], post_logout_redirect_uris: ["http://evil.example/"] } });
    expect(badUri.status).toBe(400);
    expect(badUri.body.error_description).toMatch(/^post_logout_redirect_uris\[0\]: /);
    // Pre-registration takes them too (400 naming the field when wrong).
    const prereg = await h.admin("PATCH", `/svc/resource-servers/${app.serverId}/clients/${app.clientId}`, { id_token_signed_response_alg: "HS256" });
    expect(prereg.status).toBe(400);
    expect(prereg.body.error).toMatch(/^id_token_signed_response_alg: /);
  });
});

describe("/oauth2/* aliases", () => {
  it("authorize, token, userinfo, jwks, revoke and introspect answer under /oauth2 as under /oauth", async () => {
    const config = await rp();
    const flow = await authorize(config);
    const params = flow.callback.searchParams;
    const token = await h.request("POST", "/oauth2/token", {
      basic: [app.clientId, app.clientSecret],
      form: { grant_type: "authorization_code", code: params.get("code")!, code_verifier: flow.verifier, redirect_uri: REDIRECT },
    });
    expect(token.status).toBe(200);
    expect(claimsOf(token.body.id_token).nonce).toBe(flow.nonce);
    expect((await h.request("GET", "/oauth2/userinfo", { token: token.body.access_token })).body.sub).toBe(app.userIds[0]);
    expect((await h.request("GET", "/oauth2/jwks")).body).toEqual((await h.request("GET", "/oauth/jwks")).body);
    expect((await h.request("POST", "/oauth2/introspect", { basic: [app.serverId, app.introspectionSecret], form: { token: token.body.access_token } })).body.active).toBe(true);
    expect((await h.request("POST", "/oauth2/revoke", { basic: [app.clientId, app.clientSecret], form: { token: token.body.access_token } })).status).toBe(200);
    expect((await h.request("POST", "/oauth/introspect", { basic: [app.serverId, app.introspectionSecret], form: { token: token.body.access_token } })).body.active).toBe(false);
    const viaAlias = new URL(client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: "openid", code_challenge: "x".repeat(43), code_challenge_method: "S256", resource: app.resource }).href.replace("/oauth/authorize", "/oauth2/authorize"));
    const page = await browser(h.url, h.url).open(viaAlias);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Sign in");
  });
});
