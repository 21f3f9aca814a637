// private_key_jwt (RFC 7523 §2.2) for CIMD clients, over real HTTP: the client's metadata document
// is served over HTTPS on loopback (TOOLGATE_SCAN_ALLOW_PRIVATE=1, the test CA trusted) with its
// public keys inline (`jwks`) or at a `jwks_uri`; the whole code flow runs in a browser, and the
// code is exchanged with an assertion signed here with jose. Every refused assertion is the same
// 401 invalid_client as a wrong secret; a jti works once; revocation accepts assertions too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes, randomUUID } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, setUpSignIn, type CodeFlow } from "./helpers/signin-flow";
import { loopbackCertificate, type TestCertificate } from "./helpers/tls";
import { CimdHost } from "./helpers/cimd-host";
import { OffsetClock } from "./helpers/clocks";

const REDIRECT = "http://127.0.0.1/callback";
const USER = { email: "pkj@example.test", password: "pkj-password-123" };
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const INVALID_CLIENT = { error: "invalid_client", error_description: "client authentication failed" };

type Key = { privateKey: CryptoKey; jwk: JWK; alg: string; kid: string };
async function newKey(alg: "ES256" | "RS256" | "PS256" | "EdDSA"): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, alg === "EdDSA" ? { crv: "Ed25519" } : {});
  const kid = randomUUID();
  return { privateKey, alg, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

let cert: TestCertificate;
let host: CimdHost;
let h: Harness;
let a: Awaited<ReturnType<typeof setUpSignIn>>;
const clock = new OffsetClock();
const logs: Record<string, unknown>[] = [];
/** The internal reason logged for a refused request (never sent). */
const reasonOf = (requestId: string | null) => logs.find((l) => l.requestId === requestId && l.msg === "request refused")?.reason;
let serial = 0;

beforeAll(async () => {
  cert = loopbackCertificate();
  host = await CimdHost.start(cert);
  h = await startToolgate({ clock, logs, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile } });
  a = await setUpSignIn(h.url, h.adminToken, { name: "Keys", scopes: ["keys:read"], users: [USER], redirectUri: REDIRECT });
});
afterAll(async () => {
  await h?.close();
  await host?.close();
});

/** Serves a private_key_jwt document at a fresh path, with `keys` (jwks or jwks_uri); answers the client_id. */
function hostedClient(keys: Record<string, unknown>): string {
  const path = `/pkj/${++serial}.json`;
  const url = host.origin + path;
  host.serve(path, {
    body: { client_id: url, client_name: "Key Client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], ...keys },
  });
  return url;
}

const flowOf = (clientId: string): CodeFlow => ({ publicUrl: h.config.publicUrl, serverUrl: h.url, clientId, redirectUri: "http://127.0.0.1:53111/callback", resource: a.resource, scope: "", ...USER });

interface Claims {
  iss?: string;
  sub?: string;
  aud?: string;
  exp?: number;
  iat?: number;
  jti?: string;
}
/** An assertion as the MCP SDK signs it (RFC 7523 §3 claims, 300 s lifetime), with `over` changing claims. */
function assertion(clientId: string, key: Key, over: Claims = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(clock.now().getTime() / 1000);
  const claims = { iss: clientId, sub: clientId, aud: h.config.publicUrl, iat: now, exp: now + 300, jti: randomUUID(), ...over };
  return new SignJWT({ jti: claims.jti }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...header }).setIssuer(claims.iss).setSubject(claims.sub).setAudience(claims.aud).setIssuedAt(claims.iat).setExpirationTime(claims.exp).sign(key.privateKey);
}

/** The request id of the last answer per status (to find its logged reason). */
const requestIds = new Map<number, string | null>();
async function post(path: string, form: Record<string, string>) {
  const res = await fetch(h.url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });
  const text = await res.text();
  requestIds.set(res.status, res.headers.get("x-request-id"));
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}
const exchange = (code: string, verifier: string, extra: Record<string, string>) =>
  post("/oauth/token", { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: "http://127.0.0.1:53111/callback", resource: a.resource, client_assertion_type: ASSERTION_TYPE, ...extra });

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("discovery", () => {
  it("advertises private_key_jwt and its algorithms for the token and revocation endpoints", async () => {
    const r = await h.request("GET", "/.well-known/oauth-authorization-server");
    expect(r.body.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);
    expect(r.body.revocation_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);
    expect(r.body.token_endpoint_auth_signing_alg_values_supported).toEqual(["ES256", "RS256", "PS256", "EdDSA"]);
    expect(r.body.revocation_endpoint_auth_signing_alg_values_supported).toEqual(["ES256", "RS256", "PS256", "EdDSA"]);
  });
});

describe("a CIMD client with inline jwks", () => {
  it("exchanges its code with a signed assertion; every bad assertion is invalid_client; a jti works once; revocation accepts an assertion", async () => {
    const key = await newKey("ES256");
    const clientId = hostedClient({ jwks: { keys: [key.jwk] } });
    const other = await newKey("ES256");
    const { code, verifier } = await authorizeCode(flowOf(clientId));

    const hmacKey = new Uint8Array(randomBytes(32));
    const now = Math.floor(clock.now().getTime() / 1000);
    // [case, the logged reason it must be refused for, assertion, extra form fields]
    const refused: Array<[string, string, string, Record<string, string>?]> = [
      ["expired", "ERR_JWT_EXPIRED", await assertion(clientId, key, { iat: now - 400, exp: now - 100 })],
      ["exp more than 5 minutes ahead", "exp too far ahead", await assertion(clientId, key, { exp: now + 3600 })],
      ["iat in the future", "iat in the future", await assertion(clientId, key, { iat: now + 200 })],
      ["wrong aud", "unexpected \"aud\" claim value", await assertion(clientId, key, { aud: "https://elsewhere.example" })],
      ["wrong iss", "iss differs from sub", await assertion(clientId, key, { iss: "https://elsewhere.example/c.json" })],
      ["wrong sub and iss (another client)", "unknown client", await assertion("https://elsewhere.example/c.json", key)],
      ["signed by a key not in the set (unknown kid)", "ERR_JWKS_NO_MATCHING_KEY", await assertion(clientId, other)],
      ["a known kid but another key's signature", "ERR_JWS_SIGNATURE_VERIFICATION_FAILED", await assertion(clientId, other, {}, { kid: key.kid })],
      [
        "alg none",
        "ERR_JOSE_ALG_NOT_ALLOWED",
        `${b64({ alg: "none", typ: "JWT" })}.${b64({ iss: clientId, sub: clientId, aud: h.config.publicUrl, iat: now, exp: now + 300, jti: randomUUID() })}.`,
      ],
      [
        "HMAC",
        "ERR_JOSE_ALG_NOT_ALLOWED",
        await new SignJWT({ jti: randomUUID() }).setProtectedHeader({ alg: "HS256", kid: key.kid }).setIssuer(clientId).setSubject(clientId).setAudience(h.config.publicUrl).setIssuedAt(now).setExpirationTime(now + 300).sign(hmacKey),
      ],
      ["no jti", "missing required \"jti\" claim", await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: key.kid }).setIssuer(clientId).setSubject(clientId).setAudience(h.config.publicUrl).setIssuedAt(now).setExpirationTime(now + 300).sign(key.privateKey)],
      ["not a JWT", "not a JWT", "not-a-jwt"],
      ["client_id other than the assertion's sub", "client_id differs from the assertion's sub", await assertion(clientId, key), { client_id: "https://elsewhere.example/c.json" }],
      ["another assertion type", "unsupported or missing client_assertion_type", await assertion(clientId, key), { client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer" }],
    ];
    for (const [what, reason, jwt, extra] of refused) {
      const r = await exchange(code, verifier, { client_assertion: jwt, ...extra });
      expect({ what, status: r.status, body: r.body }).toEqual({ what, status: 401, body: INVALID_CLIENT });
      expect({ what, reason: reasonOf(requestIds.get(401)!) }).toEqual({ what, reason: expect.stringContaining(reason) });
    }

    // Accepted: aud = the issuer, client_id omitted (taken from sub). The code was not spent above:
    // client authentication comes before the grant.
    const good = await assertion(clientId, key);
    const token = await exchange(code, verifier, { client_assertion: good });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: "Bearer", scope: "keys:read" });
    const introspected = await h.request("POST", "/oauth/introspect", { basic: [a.serverId, a.introspectionSecret], form: { token: token.body.access_token } });
    expect(introspected.body).toMatchObject({ active: true, client_id: clientId });

    // The same assertion again (replayed jti): refused, even on a fresh code.
    const again = await authorizeCode(flowOf(clientId));
    expect(await exchange(again.code, again.verifier, { client_assertion: good })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(reasonOf(requestIds.get(401)!)).toBe("client assertion: jti already used");
    // aud = the token endpoint URL and a matching client_id are accepted too.
    const byTokenUrl = await assertion(clientId, key, { aud: `${h.config.publicUrl.replace(/\/+$/, "")}/oauth/token` });
    const second = await exchange(again.code, again.verifier, { client_assertion: byTokenUrl, client_id: clientId });
    expect(second.status).toBe(200);

    // Revocation (RFC 7009 §2.1: authenticated like the token endpoint).
    const revoked = await post("/oauth/revoke", { token: second.body.access_token, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId, key) });
    expect(revoked).toEqual({ status: 200, body: undefined });
    const after = await h.request("POST", "/oauth/introspect", { basic: [a.serverId, a.introspectionSecret], form: { token: second.body.access_token } });
    expect(after.body).toEqual({ active: false });
    expect(await post("/oauth/revoke", { token: token.body.access_token, client_assertion_type: ASSERTION_TYPE, client_assertion: good })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(reasonOf(requestIds.get(401)!)).toBe("client assertion: jti already used");
  });

  it("an assertion together with a secret is two methods (invalid_request); a private_key_jwt client without an assertion is invalid_client", async () => {
    const key = await newKey("EdDSA");
    const clientId = hostedClient({ jwks: { keys: [key.jwk] } });
    const { code, verifier } = await authorizeCode(flowOf(clientId));
    expect(await exchange(code, verifier, { client_assertion: await assertion(clientId, key), client_secret: "s", client_id: clientId })).toEqual({
      status: 400,
      body: { error: "invalid_request", error_description: "the request is missing a required parameter, repeats a parameter, or is otherwise malformed" },
    });
    const publicStyle = await post("/oauth/token", { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: "http://127.0.0.1:53111/callback", resource: a.resource, client_id: clientId });
    expect(publicStyle).toEqual({ status: 401, body: INVALID_CLIENT });
    // The code is still good for the client that proves its key (EdDSA).
    expect((await exchange(code, verifier, { client_assertion: await assertion(clientId, key) })).status).toBe(200);
  });
});

describe("a CIMD client with a jwks_uri", () => {
  it("verifies against the fetched set, reuses it, and refetches for an unknown kid at most once a minute", async () => {
    const key = await newKey("RS256");
    const rotated = await newKey("PS256");
    const keysPath = `/pkj-keys/${++serial}.json`;
    host.serve(keysPath, { body: { keys: [key.jwk] }, headers: { "cache-control": "max-age=3600" } });
    const clientId = hostedClient({ jwks_uri: host.origin + keysPath });

    const first = await authorizeCode(flowOf(clientId));
    expect((await exchange(first.code, first.verifier, { client_assertion: await assertion(clientId, key) })).status).toBe(200);
    expect(host.hitsOf(keysPath)).toBe(1);

    // The client rotates to a new key: the first unknown kid refetches (more than a minute since
    // the last fetch), and the new key verifies.
    host.serve(keysPath, { body: { keys: [rotated.jwk] }, headers: { "cache-control": "max-age=3600" } });
    clock.advance(61_000);
    const second = await authorizeCode(flowOf(clientId));
    expect((await exchange(second.code, second.verifier, { client_assertion: await assertion(clientId, rotated) })).status).toBe(200);
    expect(host.hitsOf(keysPath)).toBe(2);

    // An unknown kid right after: refused without another fetch (at most one refetch a minute).
    const stranger = await newKey("ES256");
    const third = await authorizeCode(flowOf(clientId));
    expect(await exchange(third.code, third.verifier, { client_assertion: await assertion(clientId, stranger) })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(host.hitsOf(keysPath)).toBe(2);
    expect((await exchange(third.code, third.verifier, { client_assertion: await assertion(clientId, rotated) })).status).toBe(200);
    expect(host.hitsOf(keysPath)).toBe(2);
  });

  it("a key set that cannot be fetched is invalid_client and is not remembered", async () => {
    const key = await newKey("ES256");
    const keysPath = `/pkj-keys/${++serial}.json`;
    host.serve(keysPath, { status: 302, headers: { location: "/elsewhere.json" }, body: "" });
    const clientId = hostedClient({ jwks_uri: host.origin + keysPath });
    const { code, verifier } = await authorizeCode(flowOf(clientId));
    expect(await exchange(code, verifier, { client_assertion: await assertion(clientId, key) })).toEqual({ status: 401, body: INVALID_CLIENT });
    host.serve(keysPath, { body: { keys: [key.jwk] } });
    expect((await exchange(code, verifier, { client_assertion: await assertion(clientId, key) })).status).toBe(200);
    expect(host.hitsOf(keysPath)).toBe(2);
  });
});

describe("a jwks_uri at an IPv4 address written in IPv6 form", () => {
  it.each(["[::ffff:7f00:1]", "[::7f00:1]"])("%s is refused before any connection, even with private networks allowed", async (literal) => {
    const key = await newKey("ES256");
    const keysPath = `/pkj-keys/${++serial}.json`;
    host.serve(keysPath, { body: { keys: [key.jwk] } });
    const clientId = hostedClient({ jwks_uri: host.origin.replace("127.0.0.1", literal) + keysPath });
    const { code, verifier } = await authorizeCode(flowOf(clientId));
    expect(await exchange(code, verifier, { client_assertion: await assertion(clientId, key) })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(reasonOf(requestIds.get(401)!)).toContain(`the jwks_uri document cannot be fetched: the address ${literal.slice(1, -1)} is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)`);
    expect(host.hitsOf(keysPath)).toBe(0);
  });
});

describe("documents", () => {
  const errorPageOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1]?.replace(/&#39;/g, "'");
  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ["neither jwks nor jwks_uri", {}, "the metadata document is invalid: token_endpoint_auth_method private_key_jwt needs exactly one of jwks and jwks_uri"],
    ["both", { jwks: { keys: [{ kty: "EC" }] }, jwks_uri: "https://keys.example/jwks.json" }, "the metadata document is invalid: token_endpoint_auth_method private_key_jwt needs exactly one of jwks and jwks_uri"],
    ["an http jwks_uri", { jwks_uri: "http://keys.example/jwks.json" }, "the metadata document is invalid: jwks_uri must be an https URL: it must use https"],
    ["a private key in jwks", { jwks: { keys: [{ kty: "EC", d: "x" }] } }, "the metadata document is invalid: jwks.keys[0] is a private or symmetric key"],
    ["a symmetric key in jwks", { jwks: { keys: [{ kty: "oct", k: "x" }] } }, "the metadata document is invalid: jwks.keys[0] is a private or symmetric key"],
  ];
  it.each(refusals)("refuses private_key_jwt with %s", async (_what, keys, reason) => {
    const clientId = hostedClient(keys);
    const url = new URL(`${h.config.publicUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "http://127.0.0.1:53111/callback", code_challenge: "c".repeat(43), code_challenge_method: "S256", state: "s", resource: a.resource }).toString();
    const res = await fetch(h.url + url.pathname + url.search, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(errorPageOf(await res.text())).toBe(`The client's metadata document cannot be used: ${reason}.`);
  });
});
