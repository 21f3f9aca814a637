// Public clients (token_endpoint_auth_method "none", RFC 7591 §2 / OAuth 2.1 §2.1) at the token and
// revocation endpoints, over real HTTP: pre-registered agent, human_app and cli clients without a
// secret sign users in with PKCE, refresh (rotated, bound to the client) and revoke with their
// client_id alone; never client_credentials; a confidential client without its secret is still
// invalid_client. Discovery lists "none".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, browser, claimsOf, exchangeCode, setUpSignIn, tokenRequest, type CodeFlow } from "./helpers/signin-flow";
import { discover } from "./helpers/oauth-fixtures";

const REDIRECT = "http://127.0.0.1/callback";
const USER = { email: "pat@example.test", password: "pat-password-123" };
const INVALID_CLIENT = { error: "invalid_client", error_description: "client authentication failed" };
const INVALID_GRANT = { error: "invalid_grant", error_description: "the authorization grant is invalid, expired, revoked, or was issued to another client" };

let h: Harness;
let setup: Awaited<ReturnType<typeof setUpSignIn>>;
let publicApp: { clientId: string };
let otherPublic: { clientId: string };

async function preRegisterPublic(kind: string, over: Record<string, unknown> = {}) {
  return h.admin("POST", `/svc/resource-servers/${setup.serverId}/clients`, {
    client_name: `${kind} public`,
    kind,
    redirect_uris: [REDIRECT],
    allowed_scopes: ["notes:read", "notes:write"],
    token_endpoint_auth_method: "none",
    ...over,
  });
}

beforeAll(async () => {
  h = await startToolgate();
  setup = await setUpSignIn(h.url, h.adminToken, { name: "Notes", scopes: ["notes:read", "notes:write"], users: [USER], redirectUri: REDIRECT });
  const a = await preRegisterPublic("human_app");
  expect(a.status).toBe(201);
  publicApp = { clientId: a.body.client_id };
  const b = await preRegisterPublic("cli");
  expect(b.status).toBe(201);
  otherPublic = { clientId: b.body.client_id };
});
afterAll(async () => h?.close());

const flow = (client: { clientId: string; clientSecret?: string } = publicApp): CodeFlow => ({
  publicUrl: h.config.publicUrl,
  serverUrl: h.url,
  ...client,
  redirectUri: REDIRECT,
  resource: setup.resource,
  scope: "notes:read notes:write",
  ...USER,
});
async function introspect(token: string) {
  const r = await h.request("POST", "/oauth/introspect", { basic: [setup.serverId, setup.introspectionSecret], form: { token } });
  return r.body;
}
async function signInPublic(client = publicApp) {
  const { code, verifier } = await authorizeCode(flow(client));
  return exchangeCode(flow(client), code, verifier);
}

describe("pre-registering a public client", () => {
  it("answers 201 without a client_secret; agent, human_app and cli are accepted", async () => {
    const r = await preRegisterPublic("agent");
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ token_endpoint_auth_method: "none", kind: "agent", grant_types: ["authorization_code", "refresh_token"], client_secret_expires_at: 0 });
    expect(r.body).not.toHaveProperty("client_secret");
    const row = await h.db.client.findUnique({ where: { clientId: r.body.client_id } });
    expect(row?.secretHash).toBeNull();
  });

  it("refuses an m2m public client and a public client with client_credentials, naming the field", async () => {
    const m2m = await preRegisterPublic("m2m", { grant_types: ["client_credentials"] });
    expect(m2m.status).toBe(400);
    expect(m2m.body).toEqual({ error: "token_endpoint_auth_method: none (a public client) is for agent, human_app and cli clients, not m2m; grant_types: client_credentials needs a client secret; a public client (none) cannot use it" });
    const cc = await preRegisterPublic("agent", { grant_types: ["authorization_code", "client_credentials"] });
    expect(cc.status).toBe(400);
    expect(cc.body).toEqual({ error: "grant_types: client_credentials needs a client secret; a public client (none) cannot use it" });
    const patch = await h.admin("PATCH", `/svc/resource-servers/${setup.serverId}/clients/${publicApp.clientId}`, { grant_types: ["client_credentials"] });
    expect(patch.status).toBe(400);
    expect(patch.body).toEqual({ error: "grant_types: client_credentials needs a client secret; a public client (none) cannot use it" });
  });
});

describe("the code flow as a public client", () => {
  it("exchanges the code with client_id only (PKCE), refreshes with rotation, and the token is active", async () => {
    const r = await signInPublic();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ token_type: "Bearer", scope: "notes:read notes:write" });
    expect(claimsOf(r.body.access_token)).toMatchObject({ client_id: publicApp.clientId, sub: setup.userIds[0] });
    expect(await introspect(r.body.access_token)).toMatchObject({ active: true, client_id: publicApp.clientId });

    const refreshed = await tokenRequest(h.url, publicApp, { grant_type: "refresh_token", refresh_token: r.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    expect(refreshed.body.refresh_token).not.toBe(r.body.refresh_token);
    expect(await introspect(refreshed.body.access_token)).toMatchObject({ active: true });
  });

  it("a refresh token stays bound to its client: another public client presenting it gets invalid_grant", async () => {
    const r = await signInPublic();
    const stolen = await tokenRequest(h.url, otherPublic, { grant_type: "refresh_token", refresh_token: r.body.refresh_token });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual(INVALID_GRANT);
    // Nothing was burnt: the rightful client still refreshes.
    expect((await tokenRequest(h.url, publicApp, { grant_type: "refresh_token", refresh_token: r.body.refresh_token })).status).toBe(200);
  });

  it("PKCE stays mandatory: no code_challenge is an invalid_request redirect", async () => {
    const url = new URL(`${h.config.publicUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: publicApp.clientId, redirect_uri: REDIRECT, state: "s1", resource: setup.resource }).toString();
    const page = await browser(h.config.publicUrl, h.url).open(url);
    expect(page.status).toBe(302);
    expect(page.location?.searchParams.get("error")).toBe("invalid_request");
    expect(page.location?.searchParams.get("state")).toBe("s1");
  });

  it("a wrong code_verifier is invalid_grant for a public client too", async () => {
    const { code } = await authorizeCode(flow());
    const r = await exchangeCode(flow(), code, "x".repeat(43));
    expect(r.status).toBe(400);
    expect(r.body).toEqual(INVALID_GRANT);
  });

  it("revokes its own token with client_id only (RFC 7009), through oauth4webapi's public-client auth", async () => {
    const r = await signInPublic();
    const as = await discover(h);
    const res = await oauth.revocationRequest(as, { client_id: publicApp.clientId }, oauth.None(), r.body.access_token, { [oauth.allowInsecureRequests]: true });
    await oauth.processRevocationResponse(res);
    expect(await introspect(r.body.access_token)).toEqual({ active: false });
  });
});

describe("what a public client may not do", () => {
  it("client_credentials: unauthorized_client", async () => {
    const r = await tokenRequest(h.url, publicApp, { grant_type: "client_credentials", resource: setup.resource });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("unauthorized_client");
  });

  it("sending a secret it does not have: invalid_client", async () => {
    const r = await tokenRequest(h.url, { clientId: publicApp.clientId, clientSecret: "guess" }, { grant_type: "refresh_token", refresh_token: "x" });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_CLIENT);
  });

  it("a confidential client without its secret is still invalid_client, at the token and revocation endpoints", async () => {
    const { code, verifier } = await authorizeCode(flow({ clientId: setup.clientId, clientSecret: setup.clientSecret }));
    const r = await tokenRequest(h.url, { clientId: setup.clientId }, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_CLIENT);
    const revoke = await h.request("POST", "/oauth/revoke", { form: { client_id: setup.clientId, token: "anything" } });
    expect(revoke.status).toBe(401);
    expect(revoke.body).toEqual(INVALID_CLIENT);
    // The code was not used up by the refused request: the rightful, authenticated exchange works.
    expect((await tokenRequest(h.url, setup, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT })).status).toBe(200);
  });

  it("an unknown client_id alone: invalid_client", async () => {
    const r = await h.request("POST", "/oauth/token", { form: { client_id: "tgc_nobody", grant_type: "refresh_token", refresh_token: "x" } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID_CLIENT);
  });
});

describe("discovery", () => {
  it("lists none among the token and revocation endpoints' auth methods", async () => {
    const r = await h.request("GET", "/.well-known/oauth-authorization-server");
    expect(r.body.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);
    expect(r.body.revocation_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);
  });
});
