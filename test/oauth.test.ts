// The OAuth surface end to end with oauth4webapi as the real client: discovery, client
// credentials (client_secret_post and client_secret_basic), introspection and revocation, all
// through its strict response processing; error bodies asserted exactly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { createLocalJWKSet, jwtVerify } from "jose";
import { buildServerMetadata, clientCredentialsGrant } from "../src/modules/oauth";
import { startToolgate, type Harness } from "./helpers/harness";
import {
  claimsOf,
  clientCredentials,
  createClient,
  createServer,
  discover,
  headerOf,
  introspect,
  revoke,
  type ClientFixture,
  type ServerFixture,
} from "./helpers/oauth-fixtures";

let h: Harness;
let as: oauth.AuthorizationServer;
let server: ServerFixture;
let client: ClientFixture;

beforeAll(async () => {
  h = await startToolgate();
  as = await discover(h);
  server = await createServer(h);
  client = await createClient(h, server.id);
});
afterAll(async () => h?.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** A raw form POST, for the cases a well-behaved client library would refuse to send. */
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(h.url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const ERR = {
  invalid_request: { error: "invalid_request", error_description: "the request is missing a required parameter, repeats a parameter, or is otherwise malformed" },
  invalid_client: { error: "invalid_client", error_description: "client authentication failed" },
  unsupported_grant_type: { error: "unsupported_grant_type", error_description: "the grant type is not supported by this authorization server" },
  unauthorized_client: { error: "unauthorized_client", error_description: "the client is not allowed to use this grant type" },
  invalid_scope: { error: "invalid_scope", error_description: "the requested scope is invalid, unknown, or not allowed for this client" },
  invalid_target: { error: "invalid_target", error_description: "the requested resource is invalid, unknown, or not available to this client" },
};

describe("discovery (RFC 8414)", () => {
  it("serves the metadata at both well-known locations with the configured issuer exactly", async () => {
    const base = h.config.publicUrl;
    const expected = {
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      jwks_uri: `${base}/oauth/jwks`,
      authorization_endpoint: `${base}/oauth/authorize`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ["client_credentials", "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
      // ID-JAG −04 §7.2 (docs/enterprise-agents.md).
      authorization_grant_profiles_supported: ["urn:ietf:params:oauth:grant-profile:id-jag"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES256", "RS256", "PS256", "EdDSA"],
      revocation_endpoint: `${base}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
      revocation_endpoint_auth_signing_alg_values_supported: ["ES256", "RS256", "PS256", "EdDSA"],
      introspection_endpoint: `${base}/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
      registration_endpoint: `${base}/oauth/register`,
      client_id_metadata_document_supported: true,
    };
    expect(as).toEqual(expected);
    // The OpenID Connect document is the same plus OIDC's members (test/openid-provider.test.ts).
    const oidc = await discover(h, "oidc");
    expect(oidc).toMatchObject(expected);
    expect(oidc.userinfo_endpoint).toBe(`${base}/userinfo`);
    // Exactly the grants the token endpoint serves.
    expect(as.grant_types_supported).toEqual(h.services.oauth.grants.map((g) => g.grantType));
  });

  it("advertises only what the wired grants need: client credentials alone has no authorization endpoint", () => {
    const only = buildServerMetadata("https://auth.example.test", [clientCredentialsGrant({} as never)]);
    expect(only).toEqual({
      issuer: "https://auth.example.test",
      token_endpoint: "https://auth.example.test/oauth/token",
      jwks_uri: "https://auth.example.test/oauth/jwks",
      response_types_supported: [],
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES256", "RS256", "PS256", "EdDSA"],
      revocation_endpoint: "https://auth.example.test/oauth/revoke",
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
      revocation_endpoint_auth_signing_alg_values_supported: ["ES256", "RS256", "PS256", "EdDSA"],
      introspection_endpoint: "https://auth.example.test/oauth/introspect",
      introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
    });
    // A feature contributes members; list members are unions.
    const more = buildServerMetadata("https://auth.example.test/", [clientCredentialsGrant({} as never)], [
      (base) => ({ registration_endpoint: `${base}/oauth/register`, response_types_supported: ["code"] }),
    ]);
    expect(more).toMatchObject({ issuer: "https://auth.example.test/", token_endpoint: "https://auth.example.test/oauth/token", registration_endpoint: "https://auth.example.test/oauth/register", response_types_supported: ["code"] });
  });

  it("answers CORS preflights and carries a permissive origin", async () => {
    const pre = await fetch(`${h.url}/.well-known/oauth-authorization-server`, {
      method: "OPTIONS",
      headers: { origin: "https://inspector.example", "access-control-request-headers": "mcp-protocol-version" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/MCP-Protocol-Version/i);
    const get = await fetch(`${h.url}/.well-known/openid-configuration`);
    expect(get.headers.get("access-control-allow-origin")).toBe("*");
    expect(get.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("uses TOOLGATE_PUBLIC_URL byte for byte, even with a path", async () => {
    const other = await startToolgate({ env: { TOOLGATE_PUBLIC_URL: "https://auth.example.test/tenant-a" }, empty: true });
    try {
      const r = await other.request("GET", "/.well-known/oauth-authorization-server");
      expect(r.body.issuer).toBe("https://auth.example.test/tenant-a");
      expect(r.body.token_endpoint).toBe("https://auth.example.test/tenant-a/oauth/token");
      // RFC 8414 §3.1 path insertion (and the same for OIDC discovery, as MCP clients try it).
      expect((await other.request("GET", "/.well-known/oauth-authorization-server/tenant-a")).body).toEqual(r.body);
      const oidc = (await other.request("GET", "/.well-known/openid-configuration")).body;
      expect(oidc).toMatchObject({ ...r.body, userinfo_endpoint: "https://auth.example.test/tenant-a/userinfo" });
      expect((await other.request("GET", "/.well-known/openid-configuration/tenant-a")).body).toEqual(oidc);
    } finally {
      await other.close();
    }
  });
});

describe("client credentials (RFC 6749 §4.4)", () => {
  it.each(["post", "basic"] as const)("issues a token with client_secret_%s", async (method) => {
    const t = await clientCredentials(as, client, { scope: "files:read" }, method);
    expect(t.token_type).toBe("bearer"); // oauth4webapi lower-cases it
    expect(t.expires_in).toBe(3600);
    expect(t.scope).toBe("files:read");
  });

  it("answers exactly {access_token, token_type, expires_in, scope} with no-store, and a verifiable RFC 9068 JWT", async () => {
    const r = await post("/oauth/token", form({ grant_type: "client_credentials", scope: "files:write files:read" }), { authorization: basic(client.client_id, client.client_secret) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(r.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "files:write files:read" });
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("pragma")).toBe("no-cache");

    const token = r.body.access_token as string;
    expect(headerOf(token)).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    const jwks = await (await fetch(`${h.url}/oauth/jwks`)).json();
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: h.config.publicUrl, audience: server.resource_url, typ: "at+jwt" });
    expect(Object.keys(payload).sort()).toEqual(["aud", "client_id", "exp", "iat", "iss", "jti", "scope", "sub", "tenant_id"]);
    expect(payload).toMatchObject({ sub: client.client_id, client_id: client.client_id, tenant_id: h.workspaceId, scope: "files:write files:read" });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it("grants every allowed scope when scope is omitted, and honours the client's token lifetime", async () => {
    const short = await createClient(h, server.id, { token_lifetime: 300, allowed_scopes: ["files:read", "admin"] });
    const t = await clientCredentials(as, short);
    expect(t.scope).toBe("files:read admin");
    expect(t.expires_in).toBe(300);
  });

  it("accepts the resource indicator of the client's own server (X and X/ alike)", async () => {
    for (const resource of [server.resource_url, `${server.resource_url}/`]) {
      const t = await clientCredentials(as, client, { scope: "files:read", resource });
      expect(claimsOf(t.access_token).aud).toBe(server.resource_url);
    }
  });

  it("form-decodes Basic credentials (RFC 6749 §2.3.1)", async () => {
    // oauth4webapi encodes; a client that does not encode sends the same bytes for URL-safe ids.
    const r = await post("/oauth/token", form({ grant_type: "client_credentials" }), {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
    });
    expect(r.status).toBe(200);
    const wrongEncoding = await post("/oauth/token", form({ grant_type: "client_credentials" }), {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}%zz`).toString("base64")}`,
    });
    expect(wrongEncoding.status).toBe(401);
  });
});

describe("token endpoint errors", () => {
  const cc = () => ({ authorization: basic(client.client_id, client.client_secret) });

  it("invalid_client (401 + WWW-Authenticate) for a wrong secret, an unknown id, no credentials, or a garbage header — one description", async () => {
    const cases = [
      await post("/oauth/token", form({ grant_type: "client_credentials" }), { authorization: basic(client.client_id, "wrong") }),
      await post("/oauth/token", form({ grant_type: "client_credentials" }), { authorization: basic("tgc_nobody", client.client_secret) }),
      await post("/oauth/token", form({ grant_type: "client_credentials", client_id: client.client_id, client_secret: "wrong" })),
      await post("/oauth/token", form({ grant_type: "client_credentials", client_id: client.client_id })),
      await post("/oauth/token", form({ grant_type: "client_credentials" })),
      await post("/oauth/token", form({ grant_type: "client_credentials" }), { authorization: "Bearer abc" }),
    ];
    for (const r of cases) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(ERR.invalid_client);
      expect(r.headers.get("www-authenticate")).toBe('Basic realm="toolgate"');
      expect(r.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("invalid_client through oauth4webapi's strict processing", async () => {
    // RFC 6749 §5.2: the 401 carries a Basic challenge, which oauth4webapi surfaces first.
    const err = await clientCredentials(as, { ...client, client_secret: "nope" }).catch((e) => e);
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(err.status).toBe(401);
    expect(err.cause).toEqual([{ scheme: "basic", parameters: { realm: "toolgate" } }]);
    expect(await err.response.json()).toEqual(ERR.invalid_client);
  });

  it("invalid_request for both methods at once, a repeated parameter or a missing grant_type; 415 for a JSON body", async () => {
    const both = await post("/oauth/token", form({ grant_type: "client_credentials", client_id: client.client_id, client_secret: client.client_secret }), cc());
    const repeated = await post("/oauth/token", "grant_type=client_credentials&scope=files:read&scope=files:write", cc());
    const missing = await post("/oauth/token", form({ scope: "files:read" }), cc());
    const json = await fetch(h.url + "/oauth/token", { method: "POST", headers: { "content-type": "application/json", ...cc() }, body: JSON.stringify({ grant_type: "client_credentials" }) });
    const mismatched = await post("/oauth/token", form({ grant_type: "client_credentials", client_id: "tgc_someone_else" }), cc());
    for (const r of [both, repeated, missing, mismatched]) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual(ERR.invalid_request);
    }
    // A JSON body is the wrong content type: 415 naming the one to send (RFC 6749 §3.2 forms).
    expect(json.status).toBe(415);
    expect(await json.json()).toEqual({
      error: "invalid_request",
      error_description: "send the body as application/x-www-form-urlencoded (content-type: application/x-www-form-urlencoded); got application/json",
    });
  });

  it("unsupported_grant_type for a grant the server does not serve", async () => {
    for (const grant_type of ["password", "implicit", "urn:ietf:params:oauth:grant-type:device_code"]) {
      const r = await post("/oauth/token", form({ grant_type }), cc());
      expect(r.status).toBe(400);
      expect(r.body).toEqual(ERR.unsupported_grant_type);
    }
  });

  it("unauthorized_client when the client is not configured for client_credentials", async () => {
    const app = await createClient(h, server.id, { kind: "human_app", redirect_uris: ["https://app.example.test/cb"] });
    const err = await clientCredentials(as, app).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.cause).toEqual(ERR.unauthorized_client);
  });

  it("invalid_scope for a scope the client may not have, or one that does not exist", async () => {
    for (const scope of ["admin", "files:read admin", "nonexistent"]) {
      const err = await clientCredentials(as, client, { scope }, "post").catch((e) => e);
      expect(err).toBeInstanceOf(oauth.ResponseBodyError);
      expect(err.status).toBe(400);
      expect(err.cause).toEqual(ERR.invalid_scope);
    }
  });

  it("invalid_target for an unknown resource, another server, several resources, or a malformed one", async () => {
    const other = await createServer(h);
    const cases: Record<string, string>[] = [
      { resource: "https://unknown.example.test/mcp" },
      { resource: other.resource_url },
      { resource: "not a uri" },
    ];
    for (const params of cases) {
      const err = await clientCredentials(as, client, params).catch((e) => e);
      expect(err.status).toBe(400);
      expect(err.cause).toEqual(ERR.invalid_target);
    }
    const two = await post("/oauth/token", `grant_type=client_credentials&resource=${encodeURIComponent(server.resource_url)}&resource=${encodeURIComponent(other.resource_url)}`, cc());
    expect(two.body).toEqual(ERR.invalid_target);
  });

  it("another workspace's resource URL is unknown to this client", async () => {
    const ws = await h.createWorkspace("token-iso@example.test");
    const theirs = await createServer(h, { public_base_url: "https://shared-url.example.test" }, ws.token);
    const mine = await createServer(h, { public_base_url: "https://shared-url.example.test" });
    const myClient = await createClient(h, mine.id);
    // Same URL in both workspaces: the token is for my server, in my workspace.
    const t = await clientCredentials(as, myClient, { resource: theirs.resource_url });
    expect(claimsOf(t.access_token)).toMatchObject({ aud: mine.resource_url, tenant_id: h.workspaceId });
    expect((await introspect(as, theirs, t.access_token)).active).toBe(false);
    expect((await introspect(as, mine, t.access_token)).active).toBe(true);
  });
});

describe("introspection (RFC 7662)", () => {
  it("answers an active token with exactly the documented members", async () => {
    const t = await clientCredentials(as, client, { scope: "files:read files:write" });
    const claims = claimsOf(t.access_token);
    const r = await introspect(as, server, t.access_token);
    expect(r).toEqual({
      active: true,
      sub: client.client_id,
      aud: server.resource_url,
      scope: "files:read files:write",
      exp: claims.exp,
      client_id: client.client_id,
      iss: h.config.publicUrl,
      iat: claims.iat,
      token_type: "Bearer",
    });
  });

  it("answers exactly {active:false} for malformed, foreign-audience, tampered and unknown tokens", async () => {
    const other = await createServer(h);
    const t = await clientCredentials(as, client);
    const [head, payload, sig] = t.access_token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...claimsOf(t.access_token), scope: "admin" })).toString("base64url");
    for (const [caller, token] of [
      [server, "garbage"],
      [server, "a.b.c"],
      [server, `${head}.${forged}.${sig}`],
      [other, t.access_token],
    ] as const) {
      const res = await oauth.introspectionRequest(as, { client_id: caller.id }, oauth.ClientSecretBasic(caller.introspection_secret), token, { [oauth.allowInsecureRequests]: true });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ active: false });
    }
    expect(payload).toBeTruthy();
  });

  it("401 invalid_client for a missing or wrong caller credential; 400 for a missing token", async () => {
    const t = await clientCredentials(as, client);
    const none = await post("/oauth/introspect", form({ token: t.access_token }));
    const wrong = await post("/oauth/introspect", form({ token: t.access_token }), { authorization: basic(server.id, "wrong") });
    const asClient = await post("/oauth/introspect", form({ token: t.access_token }), { authorization: basic(client.client_id, client.client_secret) });
    for (const r of [none, wrong, asClient]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(ERR.invalid_client);
    }
    const noToken = await post("/oauth/introspect", form({}), { authorization: basic(server.id, server.introspection_secret) });
    expect(noToken.status).toBe(400);
    expect(noToken.body).toEqual(ERR.invalid_request);
  });
});

describe("revocation (RFC 7009)", () => {
  it.each(["basic", "post"] as const)("revokes the client's own token with client_secret_%s: inactive at once", async (method) => {
    const t = await clientCredentials(as, client);
    expect((await introspect(as, server, t.access_token)).active).toBe(true);
    await revoke(as, client, t.access_token, method);
    expect(await introspect(as, server, t.access_token)).toEqual({ active: false });
    // Revoking again is fine (idempotent, still 200).
    await revoke(as, client, t.access_token, method);
  });

  it("answers 200 for unknown tokens and silently ignores another client's token", async () => {
    await revoke(as, client, "not-a-token");
    const other = await createClient(h, server.id);
    const theirs = await clientCredentials(as, other);
    await revoke(as, client, theirs.access_token);
    expect((await introspect(as, server, theirs.access_token)).active).toBe(true);
    const row = await h.db.revokedToken.findUnique({ where: { jti: claimsOf(theirs.access_token).jti as string } });
    expect(row).toBeNull();
  });

  it("stores the revocation until the token's expiry", async () => {
    const t = await clientCredentials(as, client);
    await revoke(as, client, t.access_token);
    const c = claimsOf(t.access_token);
    const row = await h.db.revokedToken.findUnique({ where: { jti: c.jti as string } });
    expect(row?.expiresAt.getTime()).toBe((c.exp as number) * 1000);
  });

  it("requires client authentication (401) and a token (400)", async () => {
    const t = await clientCredentials(as, client);
    const unauth = await post("/oauth/revoke", form({ token: t.access_token }));
    expect(unauth.status).toBe(401);
    expect(unauth.body).toEqual(ERR.invalid_client);
    const wrong = await post("/oauth/revoke", form({ token: t.access_token }), { authorization: basic(client.client_id, "nope") });
    expect(wrong.body).toEqual(ERR.invalid_client);
    const noToken = await post("/oauth/revoke", form({}), { authorization: basic(client.client_id, client.client_secret) });
    expect(noToken.status).toBe(400);
    expect(noToken.body).toEqual(ERR.invalid_request);
    expect((await introspect(as, server, t.access_token)).active).toBe(true);
  });
});
