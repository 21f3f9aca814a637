// Dynamic client registration (RFC 7591) and its management (RFC 7592) over real HTTP: the 201
// answer and what it echoes, public vs confidential methods, redirect-URI rules (https, loopback
// http with any port, private-use schemes for native apps, never fragments/userinfo/wildcards),
// exact error bodies naming the field, GET/PUT/DELETE with the registration access token (stored
// hashed; a read keeps it, an update rotates it with a compare-and-set), the per-address rate limit
// (429 + Retry-After; counted in the database, so shared by instances) and the body limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { startToolgate, type Harness } from "./helpers/harness";
import { startSecondApp } from "./helpers/second-app";
import { gzipSync } from "node:zlib";
import { hashSecret } from "../src/shared/crypto";

let h: Harness;
const RATE_LIMIT = 40;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_REGISTRATION_RATE_LIMIT: String(RATE_LIMIT) } });
});
afterAll(async () => h?.close());

const VSCODE = {
  redirect_uris: ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  client_name: "Visual Studio Code",
  application_type: "native",
};

const register = (json: unknown, headers: Record<string, string> = {}) => h.request("POST", "/oauth/register", { json, headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("POST /oauth/register (RFC 7591)", () => {
  it("a public native client (VS Code's request): 201, metadata echoed, no secret, RFC 7592 handles", async () => {
    const r = await register(VSCODE);
    expect(r.status).toBe(201);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({
      client_id: expect.stringMatching(/^tgc_[A-Za-z0-9_-]{22}$/),
      client_id_issued_at: expect.any(Number),
      redirect_uris: ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "Visual Studio Code",
      application_type: "native",
      registration_access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      registration_client_uri: `${h.config.publicUrl}/oauth/register/${r.body.client_id}`,
    });
    const row = await h.db.client.findUnique({ where: { clientId: r.body.client_id } });
    expect(row).toMatchObject({ tenantId: null, resourceServerId: null, registrationMode: "dcr", kind: "agent", secretHash: null, status: "approved" });
    // Stored hashed, never in clear.
    expect(row!.registrationTokenHash).toBe(hashSecret(h.services.secretPepper, r.body.registration_access_token));
    expect(JSON.stringify(row)).not.toContain(r.body.registration_access_token);
  });

  it("an omitted method means client_secret_basic: a secret with client_secret_expires_at 0, and every optional field echoed", async () => {
    const r = await register({
      redirect_uris: ["https://app.example.test/cb"],
      client_name: "Example",
      client_uri: "https://app.example.test",
      logo_uri: "https://app.example.test/logo.png",
      scope: "notes:read notes:write",
      software_id: "example-app",
      software_version: "1.2.3",
      contacts: ["ignored@example.test"],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      token_endpoint_auth_method: "client_secret_basic",
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_secret_expires_at: 0,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      application_type: "web",
      client_uri: "https://app.example.test/",
      logo_uri: "https://app.example.test/logo.png",
      scope: "notes:read notes:write",
      software_id: "example-app",
      software_version: "1.2.3",
    });
    expect(r.body).not.toHaveProperty("contacts"); // unknown metadata is ignored (RFC 7591 §2)
  });

  it("through oauth4webapi's strict RFC 7591 processing", async () => {
    const issuer = new URL(h.config.publicUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
    expect(as.registration_endpoint).toBe(`${h.config.publicUrl}/oauth/register`);
    const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: ["http://localhost:9999/callback"], token_endpoint_auth_method: "client_secret_post" }, { [oauth.allowInsecureRequests]: true });
    const client = await oauth.processDynamicClientRegistrationResponse(res);
    expect(client).toMatchObject({ token_endpoint_auth_method: "client_secret_post", client_secret: expect.any(String) });
  });

  it("accepts private-use schemes for native apps only", async () => {
    const native = await register({ redirect_uris: ["com.example.app:/oauth2redirect", "http://[::1]/cb"], application_type: "native", token_endpoint_auth_method: "none" });
    expect(native.status).toBe(201);
    expect(native.body.redirect_uris).toEqual(["com.example.app:/oauth2redirect", "http://[::1]/cb"]);
    const web = await register({ redirect_uris: ["com.example.app:/oauth2redirect"], token_endpoint_auth_method: "none" });
    expect(web.status).toBe(400);
    expect(web.body).toEqual({ error: "invalid_redirect_uri", error_description: "redirect_uris[0]: uses the private-use scheme com.example.app:, allowed only with application_type native" });
  });

  it.each([
    [["http://evil.test/cb"], "redirect_uris[0]: uses http on a host other than 127.0.0.1, [::1] or localhost"],
    [["https://app.example.test/cb#frag"], "redirect_uris[0]: must not contain a fragment"],
    [["https://user@app.example.test/cb"], "redirect_uris[0]: must not contain credentials (user@host)"],
    [["https://*.example.test/cb"], "redirect_uris[0]: must not contain a wildcard"],
    [["https://ok.example.test/cb", "javascript:alert(1)"], "redirect_uris[1]: must use https, loopback http, or a private-use scheme such as com.example.app:"],
    [[], "redirect_uris: is required: a non-empty array of redirect URIs"],
  ])("refuses redirect_uris %j: 400 invalid_redirect_uri naming the field", async (uris, description) => {
    const r = await register({ redirect_uris: uris, token_endpoint_auth_method: "none" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "invalid_redirect_uri", error_description: description });
  });

  it.each([
    [{ token_endpoint_auth_method: "private_key_jwt" }, "token_endpoint_auth_method: not supported: must be one of none, client_secret_basic, client_secret_post"],
    [{ grant_types: ["client_credentials"] }, "grant_types: not supported: client_credentials (supported: authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:jwt-bearer, urn:ietf:params:oauth:grant-type:token-exchange)"],
    [{ grant_types: ["refresh_token"] }, "grant_types: must include authorization_code or urn:ietf:params:oauth:grant-type:jwt-bearer"],
    [{ response_types: ["token"] }, "response_types: not supported: token (supported: code)"],
    [{ application_type: "desktop" }, "application_type: must be web or native"],
    [{ client_name: 42 }, "client_name: must be a non-empty string of at most 200 characters"],
    [{ logo_uri: "http://cdn.example.test/logo.png" }, "logo_uri: must be an https URL: it must use https"],
    [{ scope: "a \"b\"" }, "scope: must be a space-separated list of scope tokens (RFC 6749 §3.3)"],
  ])("refuses %j: 400 invalid_client_metadata naming the field", async (over, description) => {
    const r = await register({ redirect_uris: ["https://app.example.test/cb"], ...over });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "invalid_client_metadata", error_description: description });
  });

  it("refuses a body that is not a JSON object, not JSON, or not application/json", async () => {
    expect((await register([1, 2])).body).toEqual({ error: "invalid_client_metadata", error_description: "body: must be a JSON object of client metadata (RFC 7591 §2)" });
    const broken = await fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: "invalid_client_metadata", error_description: "body: not valid JSON" });
    const form = await h.request("POST", "/oauth/register", { form: { redirect_uris: "https://app.example.test/cb" } });
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ error: "invalid_client_metadata", error_description: "body: must be application/json (RFC 7591 §3.1)" });
    const nul = await register({ redirect_uris: ["https://app.example.test/cb"], client_name: "a\u0000b" });
    expect(nul.body).toEqual({ error: "invalid_client_metadata", error_description: "client_name: must not contain NUL characters or unpaired surrogates" });
    // A redirect URI that cannot be stored is a bad redirect URI (RFC 7591 §3.2.2).
    const nulUri = await register({ redirect_uris: ["https://app.example.test/cb", "https://app.example.test/c\u0000b"] });
    expect([nulUri.status, nulUri.body]).toEqual([400, { error: "invalid_redirect_uri", error_description: "redirect_uris[1]: must not contain NUL characters or unpaired surrogates" }]);
  });

  it("reads a gzip body, and answers a corrupt one 400 naming the body", async () => {
    const gzipped = (body: Buffer) => fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: new Uint8Array(body) });
    const whole = gzipSync(JSON.stringify(VSCODE));
    expect((await gzipped(whole)).status).toBe(201);
    for (const corrupt of [whole.subarray(0, whole.length - 12), Buffer.from("not gzip at all"), Buffer.concat([whole.subarray(0, 20), Buffer.alloc(40, 0xff)])]) {
      const r = await gzipped(corrupt);
      expect([r.status, await r.json()]).toEqual([400, { error: "invalid_client_metadata", error_description: "body: not valid gzip data (Content-Encoding)" }]);
    }
  });

  it("refuses bidirectional control characters in what it would show people, and in redirect URIs", async () => {
    // They would reorder what the sign-in and consent pages say about the client.
    const bidi = "must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)";
    for (const [field, value] of [
      ["client_name", "Good app\u202E"],
      ["client_name", "\u2066x"],
      ["software_id", "id\u202A"],
    ] as const) {
      const r = await register({ redirect_uris: ["https://app.example.test/cb"], [field]: value });
      expect([r.status, r.body]).toEqual([400, { error: "invalid_client_metadata", error_description: `${field}: ${bidi}` }]);
    }
    const bidiUri = await register({ redirect_uris: ["com.example.app:/cb\u202Egro.live"], application_type: "native" });
    expect(bidiUri.body).toEqual({ error: "invalid_redirect_uri", error_description: `redirect_uris[0]: ${bidi}` });
  });

  it("refuses a body over the limit with 413", async () => {
    const r = await register({ redirect_uris: ["https://app.example.test/cb"], padding: "x".repeat(70 * 1024) });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: "invalid_client_metadata", error_description: "body: larger than 64kb" });
  });

  it("allows browsers (CORS preflight, no credentials)", async () => {
    const r = await h.request("OPTIONS", "/oauth/register", { headers: { origin: "https://inspector.example", "access-control-request-method": "POST" } });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-credentials")).toBeNull();
  });
});

describe("RFC 7592 client configuration endpoint", () => {
  it("GET answers the registration with the same token (a read changes nothing); PUT answers a new one and the old one stops working", async () => {
    const created = await register(VSCODE);
    const uri = new URL(created.body.registration_client_uri).pathname;
    const token = created.body.registration_access_token;
    for (let i = 0; i < 2; i++) {
      const read = await h.request("GET", uri, { headers: bearer(token) });
      expect([read.status, read.body]).toEqual([200, created.body]);
    }
    const updated = await h.request("PUT", uri, { headers: bearer(token), json: { ...VSCODE, client_id: created.body.client_id, client_name: "VS Code 2" } });
    expect(updated.status).toBe(200);
    expect(updated.body.registration_access_token).not.toBe(token);
    const stale = await h.request("GET", uri, { headers: bearer(token) });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect(stale.body).toEqual({ error: "invalid_token", error_description: "the registration access token is invalid, or the client is not registered" });
    expect((await h.request("GET", uri, { headers: bearer(updated.body.registration_access_token) })).body).toMatchObject({ client_name: "VS Code 2" });
  });

  it("parallel reads with one token all answer that token, which keeps working; of parallel updates exactly one wins, the others change nothing", async () => {
    const created = await register(VSCODE);
    const uri = new URL(created.body.registration_client_uri).pathname;
    const token = created.body.registration_access_token;
    const reads = await Promise.all(Array.from({ length: 8 }, () => h.request("GET", uri, { headers: bearer(token) })));
    expect(reads.map((r) => [r.status, r.body.registration_access_token])).toEqual(Array.from({ length: 8 }, () => [200, token]));
    const names = Array.from({ length: 8 }, (_, i) => `VS Code ${i}`);
    const puts = await Promise.all(names.map((client_name) => h.request("PUT", uri, { headers: bearer(token), json: { ...VSCODE, client_id: created.body.client_id, client_name } })));
    const won = puts.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(puts.filter((r) => r.status === 401).map((r) => r.body.error)).toEqual(Array.from({ length: 7 }, () => "invalid_token"));
    // The one new token works and holds the winner's metadata; the old one is dead.
    const now = await h.request("GET", uri, { headers: bearer(won[0]!.body.registration_access_token) });
    expect([now.status, now.body.client_name]).toEqual([200, won[0]!.body.client_name]);
    expect((await h.db.client.findUnique({ where: { clientId: created.body.client_id } }))!.clientName).toBe(won[0]!.body.client_name);
    expect((await h.request("GET", uri, { headers: bearer(token) })).status).toBe(401);
  });

  it("PUT replaces the metadata; it must name the client and not send server-managed fields", async () => {
    const created = await register(VSCODE);
    const uri = new URL(created.body.registration_client_uri).pathname;
    const put = (token: string, json: unknown) => h.request("PUT", uri, { headers: bearer(token), json });
    const wrongId = await put(created.body.registration_access_token, { ...VSCODE, client_id: "tgc_other" });
    expect(wrongId.body).toEqual({ error: "invalid_client_metadata", error_description: "client_id: must be present and equal to the registered client_id (RFC 7592 §2.2)" });
    const managed = await put(created.body.registration_access_token, { ...VSCODE, client_id: created.body.client_id, registration_access_token: "x" });
    expect(managed.body).toEqual({ error: "invalid_client_metadata", error_description: "registration_access_token: must not be sent in an update (RFC 7592 §2.2)" });
    const method = await put(created.body.registration_access_token, { ...VSCODE, client_id: created.body.client_id, token_endpoint_auth_method: "client_secret_basic" });
    expect(method.body).toEqual({ error: "invalid_client_metadata", error_description: "token_endpoint_auth_method: cannot change after registration (registered: none)" });

    const ok = await put(created.body.registration_access_token, { ...VSCODE, client_id: created.body.client_id, client_name: "VS Code Insiders", redirect_uris: ["https://insiders.vscode.dev/redirect"] });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ client_id: created.body.client_id, client_name: "VS Code Insiders", redirect_uris: ["https://insiders.vscode.dev/redirect"] });
    const row = await h.db.client.findUnique({ where: { clientId: created.body.client_id } });
    expect(row).toMatchObject({ clientName: "VS Code Insiders", redirectUris: ["https://insiders.vscode.dev/redirect"] });
  });

  it("DELETE removes the registration (204); afterwards every call is 401", async () => {
    const created = await register(VSCODE);
    const uri = new URL(created.body.registration_client_uri).pathname;
    const del = await h.request("DELETE", uri, { headers: bearer(created.body.registration_access_token) });
    expect(del.status).toBe(204);
    expect(await h.db.client.findUnique({ where: { clientId: created.body.client_id } })).toBeNull();
    expect((await h.request("DELETE", uri, { headers: bearer(created.body.registration_access_token) })).status).toBe(401);
  });

  it("an unknown client, a missing token, or a pre-registered client's id: 401 alike", async () => {
    const created = await register(VSCODE);
    expect((await h.request("GET", "/oauth/register/tgc_unknown", { headers: bearer(created.body.registration_access_token) })).status).toBe(401);
    expect((await h.request("GET", new URL(created.body.registration_client_uri).pathname)).status).toBe(401);
  });
});

describe("counters", () => {
  it("count registrations and refusals for monitoring", async () => {
    const before = { ...h.services.registration.stats };
    await register(VSCODE);
    await register({ redirect_uris: ["http://evil.test/cb"] });
    expect(h.services.registration.stats.registered).toBe(before.registered + 1);
    expect(h.services.registration.stats.rejected).toBe(before.rejected + 1);
  });
});

describe("rate limit per address, shared by instances", () => {
  it("counts in the database: registrations through another instance (or after a restart) use up the same allowance", async () => {
    const limited = await startToolgate({ env: { TOOLGATE_REGISTRATION_RATE_LIMIT: "3" } });
    const other = await startSecondApp(limited);
    try {
      const registerAt = (base: string) => fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(VSCODE) });
      expect((await registerAt(limited.url)).status).toBe(201);
      expect((await registerAt(other.url)).status).toBe(201);
      expect((await registerAt(limited.url)).status).toBe(201);
      for (const base of [other.url, limited.url]) {
        const r = await registerAt(base);
        expect(r.status).toBe(429);
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(3500);
      }
      expect(await limited.db.client.count({ where: { registrationMode: "dcr" } })).toBe(3);
    } finally {
      await other.close();
      await limited.close();
    }
  });

  it("beyond the limit: 429 with Retry-After, counted; nothing registered", async () => {
    const count = await h.db.client.count();
    let limited: Awaited<ReturnType<typeof register>> | undefined;
    for (let i = 0; i <= RATE_LIMIT && !limited; i++) {
      const r = await register({ redirect_uris: ["http://evil.test/cb"] }); // refused ones count too: each costs a parse
      if (r.status === 429) limited = r;
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited!.body).toEqual({ error: "too_many_requests", error_description: "too many registrations from this address; try again later" });
    expect(h.services.registrationHttpStats.rateLimited).toBeGreaterThan(0);
    expect(await h.db.client.count()).toBe(count);
  });
});
