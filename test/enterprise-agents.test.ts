// Enterprise-managed agents (ID-JAG at the jwt-bearer grant) and workload identity (docs/enterprise-agents.md):
// a test IdP of jose keys with its JWKS on loopback issues ID-JAGs; every refusal of the validation
// table is asserted with its exact error; first connection -> pending access request -> approve ->
// token; deny; revoke -> inactive at once; JWKS cached; workload JWT-SVIDs; two-workspace isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { SignJWT, generateKeyPair, exportJWK } from "jose";
import { startToolgate, type Harness } from "./helpers/harness";
import { createServer, type ServerFixture } from "./helpers/oauth-fixtures";
import { loopbackCertificate } from "./helpers/tls";
import { CimdHost } from "./helpers/cimd-host";
import { OffsetClock } from "./helpers/clocks";
import { TestIdp } from "./helpers/test-idp";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";

const onPostgres = !!process.env.TEST_DATABASE_URL;
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag";
const ISSUER = "https://idp.acme.example";

let h: Harness;
let host: CimdHost;
let idp: TestIdp;
let files: ServerFixture;
let readers: string;
let writers: string;
let agent: { client_id: string; client_secret: string };
let trustId: string;
const clock = new OffsetClock();

beforeAll(async () => {
  const cert = loopbackCertificate();
  host = await CimdHost.start(cert);
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile } });
  idp = await TestIdp.create(ISSUER);
  host.serve("/idp/jwks", { body: idp.jwks() });
  files = await createServer(h, { scopes_supported: ["files:read", "files:write"] });
  readers = (await h.admin("POST", "/svc/authmgr/roles", { name: "Readers", grants: [{ resource_server_id: files.id, scope_ids: ["files:read"] }] })).body.id;
  writers = (await h.admin("POST", "/svc/authmgr/roles", { name: "Writers", grants: [{ resource_server_id: files.id, scope_ids: ["files:read", "files:write"] }] })).body.id;
  const c = await h.admin("POST", `/svc/resource-servers/${files.id}/clients`, { client_name: "Claude (enterprise)", kind: "agent", redirect_uris: [], grant_types: [JWT_BEARER], allowed_scopes: ["files:read", "files:write"] });
  expect(c.status, c.text).toBe(201);
  agent = c.body;
  const t = await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "Acme Okta", issuer: ISSUER, jwks_uri: host.origin + "/idp/jwks", allowed_algs: ["ES256"], jit_create_users: true });
  expect(t.status, t.text).toBe(201);
  trustId = t.body.id;
});
afterAll(async () => {
  await h?.close();
  await host?.close();
});

/** An ID-JAG for alice, valid in every respect unless overridden. */
function jag(over: Record<string, unknown> = {}, opts: Parameters<TestIdp["mint"]>[1] = {}) {
  return idp.mint({ sub: "00u-alice", email: "alice@acme.example", aud: h.config.publicUrl, client_id: agent.client_id, resource: files.resource_url, scope: "files:read files:write", ...over }, { iat: Math.floor(clock.now().getTime() / 1000), ...opts });
}
function exchange(assertion: string | undefined, extra: Record<string, string> = {}, basic: [string, string] | null = [agent.client_id, agent.client_secret]) {
  return h.request("POST", "/oauth/token", { basic: basic ?? undefined, form: { grant_type: JWT_BEARER, ...(assertion === undefined ? {} : { assertion }), ...extra } });
}
async function introspect(server: ServerFixture, token: string) {
  return (await h.request("POST", "/oauth/introspect", { basic: [server.id, server.introspection_secret], form: { token } })).body;
}

describe("discovery", () => {
  it("lists jwt-bearer and the id-jag profile, never the trusted issuers", async () => {
    const r = await h.request("GET", "/.well-known/oauth-authorization-server");
    expect(r.body.grant_types_supported).toContain(JWT_BEARER);
    expect(r.body.authorization_grant_profiles_supported).toEqual([ID_JAG_PROFILE]);
    expect(r.text).not.toContain("idp.acme.example");
  });
});

describe("ID-JAG", () => {
  let requestId: string;

  it("a first valid ID-JAG creates one pending access request; repeats answer the same", async () => {
    const first = await exchange(await jag());
    expect(first.status, first.text).toBe(400);
    expect(first.body.error).toBe("access_denied");
    const m = /pending administrator approval \(request ([0-9a-f-]{36})\)$/.exec(first.body.error_description);
    expect(m, first.body.error_description).not.toBeNull();
    requestId = m![1]!;
    const again = await exchange(await jag());
    expect(again.body).toEqual(first.body);
    const list = await h.admin("GET", "/svc/access-requests?status=pending");
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ id: requestId, status: "pending", client_id: agent.client_id, user_email: "alice@acme.example", resource_server_id: files.id, scopes_requested: ["files:read", "files:write"], kind: "agent" });
    expect((await h.admin("GET", `/svc/resource-servers/${files.id}/access-requests`)).body.items.map((i: any) => i.id)).toEqual([requestId]);
    // The server's client list: "Pending approval" now matches the client whose agent waits.
    const pending = await h.admin("GET", `/svc/resource-servers/${files.id}/clients?status=pending`);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body.items.map((c: any) => c.client_id)).toEqual([agent.client_id]);
  });

  it("fetched the issuer's JWKS once for all those requests", () => {
    expect(host.hits.get("/idp/jwks")).toBe(1);
  });

  it("a readonly_auditor lists requests but cannot decide them", async () => {
    const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "ea-auditor@example.test", username: "eaa", password: "a long enough password 5" });
    await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u.body.id}`, { membership_type: "readonly_auditor" });
    const auditor = await h.login("ea-auditor@example.test", "a long enough password 5", h.workspaceId);
    expect((await h.request("GET", "/svc/access-requests", { token: auditor })).status).toBe(200);
    expect((await h.request("POST", `/svc/access-requests/${requestId}/approve`, { token: auditor, json: {} })).status).toBe(403);
    expect((await h.request("POST", `/svc/access-requests/${requestId}/deny`, { token: auditor, json: { reason: "no" } })).status).toBe(403);
  });

  it("approval with a role gives the next exchange a token: user-bound, audience the resource, scope present, no refresh token", async () => {
    const a = await h.admin("POST", `/svc/access-requests/${requestId}/approve`, { role_id: readers });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toMatchObject({ status: "approved", role_id: readers, decided_by: h.ownerId });
    const r = await exchange(await jag());
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: expect.any(Number), scope: "files:read" });
    const i = await introspect(files, r.body.access_token);
    expect(i).toMatchObject({ active: true, client_id: agent.client_id, aud: files.resource_url, scope: "files:read" });
    // Requested ∩ ID-JAG scope: asking for less gets less.
    expect((await exchange(await jag({ scope: "files:read" }), { scope: "files:read files:write" })).body.scope).toBe("files:read");
    const audit = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/audit-events?action=access_request.approved`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.items[0]).toMatchObject({ action: "access_request.approved" });
  });

  it("the user's scope follows their roles at the next exchange (the introspection resolver)", async () => {
    const alice = (await h.admin("GET", `/svc/access-requests/${requestId}`)).body.user_id;
    const b = await h.admin("POST", `/uflow/v2/users/${alice}/role-bindings`, { tenant_id: h.workspaceId, role_id: writers, scope_type: "resource_server", scope_id: files.id });
    expect(b.status, b.text).toBe(201);
    expect((await exchange(await jag())).body.scope).toBe("files:read files:write");
    expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${b.body.id}`)).status).toBe(204);
    expect((await exchange(await jag())).body.scope).toBe("files:read");
  });

  it("refuses every check of the table with its exact error", async () => {
    const other = await generateKeyPair("ES256");
    const expectError = async (p: Promise<{ status: number; body: any; text: string }>, status: number, error: string) => {
      const r = await p;
      expect(r.status, r.text).toBe(status);
      expect(r.body.error, r.text).toBe(error);
    };
    // 1 client authentication
    await expectError(exchange(await jag(), {}, [agent.client_id, "wrong"]), 401, "invalid_client");
    await expectError(exchange(await jag(), {}, null), 401, "invalid_client");
    // 2 assertion
    await expectError(exchange(undefined), 400, "invalid_request");
    // 3 typ, alg
    await expectError(exchange(await jag({}, { typ: "JWT" })), 400, "invalid_grant");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "oauth-id-jag+jwt" })).toString("base64url")}.${Buffer.from(JSON.stringify({ iss: ISSUER })).toString("base64url")}.`;
    await expectError(exchange(none), 400, "invalid_grant");
    const hs = await new SignJWT({ iss: ISSUER, aud: h.config.publicUrl, client_id: agent.client_id, jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: "HS256", typ: "oauth-id-jag+jwt" })
      .sign(new TextEncoder().encode("a shared secret that is long enough"));
    await expectError(exchange(hs), 400, "invalid_grant");
    // 4 issuer not trusted; signature by another key
    await expectError(exchange(await jag({ iss: "https://evil.example" })), 400, "invalid_grant");
    const forged = await new SignJWT({ iss: ISSUER, sub: "00u-alice", aud: h.config.publicUrl, client_id: agent.client_id, resource: files.resource_url, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: "ES256", typ: "oauth-id-jag+jwt", kid: idp.keys[0]!.kid })
      .sign(other.privateKey);
    await expectError(exchange(forged), 400, "invalid_grant");
    // 5 audience: another AS; two audiences; our issuer with one trailing slash is fine
    await expectError(exchange(await jag({ aud: "https://other-as.example" })), 400, "invalid_grant");
    await expectError(exchange(await jag({ aud: [h.config.publicUrl, "https://other-as.example"] })), 400, "invalid_grant");
    expect((await exchange(await jag({ aud: h.config.publicUrl.replace(/\/?$/, "/") }))).status).toBe(200);
    // 6 expired; issued in the future; lifetime longer than the trust's maximum (600 s)
    const now = Math.floor(clock.now().getTime() / 1000);
    await expectError(exchange(await jag({ exp: now - 120 })), 400, "invalid_grant");
    await expectError(exchange(await jag({}, { iat: now + 600 })), 400, "invalid_grant");
    await expectError(exchange(await jag({}, { lifetimeS: 3600 })), 400, "invalid_grant");
    // 7 jti replay
    const once = await jag();
    expect((await exchange(once)).status).toBe(200);
    await expectError(exchange(once), 400, "invalid_grant");
    await expectError(exchange(await jag({ jti: undefined })), 400, "invalid_grant");
    // 8 client_id claim of another client
    await expectError(exchange(await jag({ client_id: "someone-else" })), 400, "invalid_grant");
    // 9 a resource that is none of our servers
    await expectError(exchange(await jag({ resource: "https://unknown.example.test/mcp" })), 400, "invalid_grant");
    // 11 DPoP-bound
    await expectError(exchange(await jag({ cnf: { jkt: "abc" } })), 400, "invalid_grant");
    // 12 subject unknown without an email to create it
    await expectError(exchange(await jag({ sub: "00u-nobody", email: undefined })), 400, "access_denied");
  });

  it("a denied request answers access_denied; the denial is recorded with its reason", async () => {
    const bob = await exchange(await jag({ sub: "00u-bob", email: "bob@acme.example" }));
    const id = /request ([0-9a-f-]{36})/.exec(bob.body.error_description)![1]!;
    const d = await h.admin("POST", `/svc/access-requests/${id}/deny`, { reason: "contractor" });
    expect(d.body).toMatchObject({ status: "denied", reason: "contractor", decided_by: h.ownerId });
    const again = await exchange(await jag({ sub: "00u-bob", email: "bob@acme.example" }));
    expect(again.body.error).toBe("access_denied");
    expect(again.body.error_description).not.toMatch(/pending/);
    expect((await h.admin("GET", "/svc/access-requests?status=denied")).body.items.map((i: any) => i.id)).toEqual([id]);
  });

  it("GraphQL lists requests per workspace and per server; a readonly_auditor cannot decide", async () => {
    const gql = (query: string, variables: Record<string, unknown>, token = h.adminToken) => h.request("POST", "/graphql", { token, json: { query, variables } });
    const list = await gql(`query($s: ID) { accessRequests(resourceServerId: $s) { id status clientId userEmail scopesRequested cursor } }`, { s: files.id });
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.accessRequests.map((r: any) => [r.userEmail, r.status])).toEqual(expect.arrayContaining([["alice@acme.example", "approved"], ["bob@acme.example", "denied"]]));
    const carol = await exchange(await jag({ sub: "00u-carol", email: "carol@acme.example" }));
    const id = /request ([0-9a-f-]{36})/.exec(carol.body.error_description)![1]!;
    const auditor = await h.login("ea-auditor@example.test", "a long enough password 5", h.workspaceId);
    const denied = await gql(`mutation($id: ID!) { denyAccessRequest(id: $id, reason: "x") { id } }`, { id }, auditor);
    expect(denied.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const ok = await gql(`mutation($id: ID!) { denyAccessRequest(id: $id, reason: "not now") { id status reason decidedBy } }`, { id });
    expect(ok.body.data.denyAccessRequest).toEqual({ id, status: "denied", reason: "not now", decidedBy: h.ownerId });
  });

  it("revoking the connection makes its tokens inactive at once; re-approval starts a new family", async () => {
    const t = (await exchange(await jag())).body.access_token;
    expect((await introspect(files, t)).active).toBe(true);
    const r = await h.admin("POST", `/svc/access-requests/${requestId}/revoke`);
    expect(r.body.status).toBe("revoked");
    expect((await introspect(files, t)).active).toBe(false);
    expect((await exchange(await jag())).body.error).toBe("access_denied");
    await h.admin("POST", `/svc/access-requests/${requestId}/approve`, { scopes: ["files:read"] });
    const fresh = (await exchange(await jag())).body;
    expect(fresh.scope).toBe("files:read");
    expect((await introspect(files, fresh.access_token)).active).toBe(true);
    expect((await introspect(files, t)).active).toBe(false);
  });

  it("records last_connected_at in batches", async () => {
    await h.services.accessRequests.flush();
    expect((await h.admin("GET", `/svc/access-requests/${requestId}`)).body.last_connected_at).toEqual(expect.any(String));
  });

  it("a rotated IdP key is picked up with one refetch of the JWKS", async () => {
    const before = host.hits.get("/idp/jwks")!;
    const k2 = await idp.addKey();
    host.serve("/idp/jwks", { body: idp.jwks() });
    clock.advance(61_000); // past the refetch limit of one per minute
    expect((await exchange(await jag({}, { key: k2 }))).status).toBe(200);
    expect((await exchange(await jag({}, { key: k2 }))).status).toBe(200);
    expect(host.hits.get("/idp/jwks")).toBe(before + 1);
  });
});

describe("workload identity (JWT-SVID)", () => {
  let bundle: { privateKey: CryptoKey; kid: string; jwks: { keys: unknown[] } };
  let billing: { client_id: string };
  const svid = async (over: Record<string, unknown> = {}, header: Record<string, unknown> = {}) => {
    const now = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({ sub: "spiffe://acme.com/ns/prod/sa/billing", aud: ["toolgate"], iat: now, exp: now + 300, jti: randomUUID(), ...over })
      .setProtectedHeader({ alg: "ES256", kid: bundle.kid, typ: "JWT", ...header })
      .sign(bundle.privateKey);
  };
  const wl = (assertion: string, extra: Record<string, string> = {}) => h.request("POST", "/oauth/token", { form: { grant_type: JWT_BEARER, assertion, resource: files.resource_url, ...extra } });

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    bundle = { privateKey: privateKey as CryptoKey, kid: "spire-1", jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: "spire-1", alg: "ES256" }] } };
    const a = await h.admin("POST", "/svc/sdkmgr/agents", { name: "Billing job", kind: "autonomous", access: [{ resource_server_id: files.id, role_id: readers }] });
    billing = a.body;
    const t = await h.admin("POST", "/svc/spire/trust-domains", {
      name: "prod SPIRE",
      trust_domain: "acme.com",
      jwks: bundle.jwks,
      audience: "toolgate",
      allowed_algs: ["ES256"],
      rules: [{ pattern: "spiffe://acme.com/ns/prod/sa/*", client_id: billing.client_id }],
    });
    expect(t.status, t.text).toBe(201);
  });

  it("a JWT-SVID gets a token for its service account, without a client secret", async () => {
    const r = await wl(await svid());
    expect(r.status, r.text).toBe(200);
    expect(r.body.scope).toBe("files:read");
    expect(await introspect(files, r.body.access_token)).toMatchObject({ active: true, client_id: billing.client_id, sub: billing.client_id });
  });

  it("refuses a wrong trust domain, audience, expired, replayed, alg none and HS256", async () => {
    const now = Math.floor(clock.now().getTime() / 1000);
    expect((await wl(await svid({ sub: "spiffe://evil.com/ns/prod/sa/billing" }))).body.error).toBe("invalid_grant");
    expect((await wl(await svid({ aud: ["someone-else"] }))).body.error).toBe("invalid_grant");
    expect((await wl(await svid({ exp: now - 120, iat: now - 400 }))).body.error).toBe("invalid_grant");
    const once = await svid();
    expect((await wl(once)).status).toBe(200);
    expect((await wl(once)).body.error).toBe("invalid_grant");
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "spiffe://acme.com/ns/prod/sa/billing", aud: "toolgate", exp: now + 60, jti: "x" })).toString("base64url")}.`;
    expect((await wl(none)).body.error).toBe("invalid_grant");
    const hs = await new SignJWT({ sub: "spiffe://acme.com/ns/prod/sa/billing", aud: "toolgate", exp: now + 60, jti: randomUUID() }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("shared secret long enough for hs256!"));
    expect((await wl(hs)).body.error).toBe("invalid_grant");
    // An unmapped subject of the trust domain; a scope the service account lacks.
    expect((await wl(await svid({ sub: "spiffe://acme.com/ns/dev/sa/billing" }))).body.error).toBe("unauthorized_client");
    expect((await wl(await svid(), { scope: "files:write" })).body.error).toBe("invalid_scope");
  });
});

describe("workload identity (an OIDC-style issuer: Kubernetes service-account tokens)", () => {
  it("maps sub patterns to a service account; another issuer's token is refused", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k8s-1", alg: "RS256" }] };
    const ci = (await h.admin("POST", "/svc/sdkmgr/agents", { name: "Cluster sync", kind: "autonomous", access: [{ resource_server_id: files.id, role_id: writers }] })).body;
    const t = await h.admin("POST", "/svc/spire/trust-domains", {
      name: "prod cluster",
      issuer: "https://kubernetes.default.svc",
      jwks,
      audience: "https://toolgate.example",
      allowed_algs: ["RS256"],
      rules: [{ pattern: "system:serviceaccount:prod:*", client_id: ci.client_id }],
    });
    expect(t.status, t.text).toBe(201);
    const sa = (sub: string, iss = "https://kubernetes.default.svc") => {
      const now = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT({ iss, sub, aud: ["https://toolgate.example"], iat: now, exp: now + 600, jti: randomUUID() }).setProtectedHeader({ alg: "RS256", kid: "k8s-1" }).sign(privateKey);
    };
    const form = async (assertion: string, extra: Record<string, string> = {}) => h.request("POST", "/oauth/token", { form: { grant_type: JWT_BEARER, assertion, resource: files.resource_url, ...extra } });
    const ok = await form(await sa("system:serviceaccount:prod:sync"), { scope: "files:write" });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.scope).toBe("files:write");
    expect((await form(await sa("system:serviceaccount:dev:sync"))).body.error).toBe("unauthorized_client");
    expect((await form(await sa("system:serviceaccount:prod:sync", "https://other-cluster.example"))).body.error).toBe("invalid_grant");
    expect((await form(await sa("system:serviceaccount:prod:sync"), { client_id: "someone-else" })).body.error).toBe("unauthorized_client");
    expect((await form(await sa("system:serviceaccount:prod:sync"), { resource: "https://nowhere.example.test/mcp" })).body.error).toBe("invalid_target");
  });
});

describe("two workspaces", () => {
  it("another workspace sees none of these trusts, requests or connections, and its trust of the same issuer does not open our servers", async () => {
    const other = await h.createWorkspace("ea-other@example.test");
    const as = (m: string, p: string, json?: unknown) => h.request(m, p, { token: other.token, json });
    expect((await as("GET", "/svc/oocmgr/id-jag-trusts")).body.items).toEqual([]);
    expect((await as("GET", "/svc/spire/trust-domains")).body.items).toEqual([]);
    expect((await as("GET", "/svc/access-requests")).body.items).toEqual([]);
    expect((await as("GET", `/svc/oocmgr/id-jag-trusts/${trustId}`)).status).toBe(404);
    const anyRequest = (await h.admin("GET", "/svc/access-requests")).body.items[0].id;
    expect((await as("POST", `/svc/access-requests/${anyRequest}/approve`, {})).status).toBe(404);
    // The other workspace trusts a different IdP under the same issuer name; its keys cannot sign for our resource.
    const rogue = await TestIdp.create(ISSUER);
    expect((await as("POST", "/svc/oocmgr/id-jag-trusts", { name: "Rogue", issuer: ISSUER, jwks: rogue.jwks(), jit_create_users: true })).status).toBe(201);
    const forged = await rogue.mint({ sub: "00u-alice", email: "alice@acme.example", aud: h.config.publicUrl, client_id: agent.client_id, resource: files.resource_url, scope: "files:read" });
    expect((await exchange(forged)).body.error).toBe("invalid_grant");
  });
});

describe("registration metadata", () => {
  it("DCR stores authorization_grant_profiles_supported and requires both grant types with the id-jag profile", async () => {
    const base = { redirect_uris: ["https://agent.example/cb"], client_name: "XAA agent" };
    const bad = await h.request("POST", "/oauth/register", { json: { ...base, grant_types: ["authorization_code"], authorization_grant_profiles_supported: [ID_JAG_PROFILE] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_client_metadata");
    const ok = await h.request("POST", "/oauth/register", {
      json: { ...base, grant_types: ["authorization_code", JWT_BEARER, "urn:ietf:params:oauth:grant-type:token-exchange"], authorization_grant_profiles_supported: [ID_JAG_PROFILE] },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.authorization_grant_profiles_supported).toEqual([ID_JAG_PROFILE]);
    expect((await h.request("GET", `/oauth/register/${ok.body.client_id}`, { token: ok.body.registration_access_token })).body.authorization_grant_profiles_supported).toEqual([ID_JAG_PROFILE]);
  });

  it("a dcr client of no workspace goes through the same approval; approval connects it, revocation disconnects it", async () => {
    const reg = await h.request("POST", "/oauth/register", {
      json: { redirect_uris: ["https://agent.example/cb"], client_name: "DCR agent", grant_types: ["authorization_code", JWT_BEARER, "urn:ietf:params:oauth:grant-type:token-exchange"], authorization_grant_profiles_supported: [ID_JAG_PROFILE] },
    });
    const dcr: [string, string] = [reg.body.client_id, reg.body.client_secret];
    const assertion = () => jag({ client_id: dcr[0], scope: "files:read" });
    const first = await exchange(await assertion(), {}, dcr);
    expect(first.body.error_description).toMatch(/pending administrator approval/);
    const id = /request ([0-9a-f-]{36})/.exec(first.body.error_description)![1]!;
    expect((await h.admin("POST", `/svc/access-requests/${id}/approve`, {})).status).toBe(200);
    const t = await exchange(await assertion(), {}, dcr);
    expect(t.status, t.text).toBe(200);
    expect(await introspect(files, t.body.access_token)).toMatchObject({ active: true, client_id: dcr[0], scope: "files:read" });
    await h.admin("POST", `/svc/access-requests/${id}/revoke`);
    expect((await introspect(files, t.body.access_token)).active).toBe(false);
  });
});

describe("auto-approval for members of a trust's groups", () => {
  let dave: string;
  beforeAll(async () => {
    const g = await h.admin("POST", "/uflow/v2/groups", { name: "Agent pilots" });
    expect(g.status, g.text).toBe(201);
    const mk = async (email: string) => (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: email.split("@")[0], password: "a long enough password 7" })).body.id as string;
    dave = await mk("dave@acme.example");
    await mk("erin@acme.example");
    expect((await h.admin("POST", `/uflow/v2/groups/${g.body.id}/members`, { user_id: dave })).status).toBe(201);
    expect((await h.admin("POST", `/uflow/v2/groups/${g.body.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: readers })).status).toBe(201);
    // A group id of no group of this workspace is refused; the workspace's own is accepted.
    const bad = await h.admin("PATCH", `/svc/oocmgr/id-jag-trusts/${trustId}`, { auto_approve_group_ids: [randomUUID()] });
    expect(bad.status, bad.text).toBe(400);
    const t = await h.admin("PATCH", `/svc/oocmgr/id-jag-trusts/${trustId}`, { auto_approve_group_ids: [g.body.id] });
    expect(t.status, t.text).toBe(200);
    expect(t.body.auto_approve_group_ids).toEqual([g.body.id]);
  });

  it("a member's first ID-JAG gets a token at once; the request is approved by the system and audited", async () => {
    const r = await exchange(await jag({ sub: "00u-dave", email: "dave@acme.example" }));
    expect(r.status, r.text).toBe(200);
    expect(r.body.scope).toBe("files:read");
    expect(await introspect(files, r.body.access_token)).toMatchObject({ active: true, sub: dave, client_id: agent.client_id });
    const list = (await h.admin("GET", "/svc/access-requests?status=approved")).body.items.filter((i: any) => i.user_id === dave);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: "approved", decided_by: "auto", decided_at: expect.any(String), client_id: agent.client_id });
    const audit = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/audit-events?action=access_request.auto_approved`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ action: "access_request.auto_approved", actor: { type: "system", id: null } });
    // The connection is an ordinary approved one: revocable, and the next exchange is refused.
    await h.admin("POST", `/svc/access-requests/${list[0].id}/revoke`);
    expect((await introspect(files, r.body.access_token)).active).toBe(false);
    expect((await exchange(await jag({ sub: "00u-dave", email: "dave@acme.example" }))).body.error).toBe("access_denied");
  });

  it("a non-member's first ID-JAG waits for an administrator", async () => {
    const r = await exchange(await jag({ sub: "00u-erin", email: "erin@acme.example" }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.error_description).toMatch(/pending administrator approval/);
    const id = /request ([0-9a-f-]{36})/.exec(r.body.error_description)![1]!;
    expect((await h.admin("GET", `/svc/access-requests/${id}`)).body).toMatchObject({ status: "pending", decided_by: null, user_email: "erin@acme.example" });
  });
});

describe("an ID-JAG trust created from an upstream provider (/svc/oocmgr/providers)", () => {
  it("takes the provider's issuer and jwks_uri; the provider must be of the same workspace", async () => {
    const p2 = await TestIdp.create(host.origin + "/p2");
    host.serve("/p2/.well-known/openid-configuration", {
      body: {
        issuer: p2.issuer,
        authorization_endpoint: host.origin + "/p2/auth",
        token_endpoint: host.origin + "/p2/token",
        jwks_uri: host.origin + "/p2/jwks",
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["ES256"],
        code_challenge_methods_supported: ["S256"],
      },
    });
    host.serve("/p2/jwks", { body: p2.jwks() });
    const provider = await h.admin("POST", "/svc/oocmgr/providers", { name: "Acme Entra", issuer: p2.issuer, client_id: "toolgate-at-entra", client_secret: "a provider secret of some length" });
    expect(provider.status, provider.text).toBe(201);
    // provider_id replaces issuer and keys; an unknown provider (or another workspace's) is a 404.
    expect((await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "Entra", provider_id: provider.body.id, issuer: p2.issuer })).status).toBe(400);
    expect((await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "Entra", provider_id: randomUUID() })).status).toBe(404);
    const other = await h.createWorkspace("ea-provider-other@example.test");
    expect((await h.request("POST", "/svc/oocmgr/id-jag-trusts", { token: other.token, json: { name: "Entra", provider_id: provider.body.id } })).status).toBe(404);
    const t = await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "Entra", provider_id: provider.body.id, allowed_algs: ["ES256"], jit_create_users: true });
    expect(t.status, t.text).toBe(201);
    expect(t.body).toMatchObject({ provider_id: provider.body.id, issuer: p2.issuer, jwks_uri: host.origin + "/p2/jwks", jwks: null });
    // Its ID-JAGs are verified with the provider's keys: a valid one reaches the approval step; another key's is refused.
    const iat = Math.floor(clock.now().getTime() / 1000);
    const claims = { sub: "00u-frank", email: "frank@acme.example", aud: h.config.publicUrl, client_id: agent.client_id, resource: files.resource_url, scope: "files:read" };
    const ok = await exchange(await p2.mint(claims, { iat }));
    expect(ok.body.error_description, ok.text).toMatch(/pending administrator approval/);
    const forged = await exchange(await p2.mint(claims, { iat, key: idp.keys[0] }));
    expect(forged.body.error, forged.text).toBe("invalid_grant");
  });
});

describe.runIf(onPostgres)("two instances", () => {
  it("a jti is single-use across instances, and a revoked connection's token is inactive at the other instance", async () => {
    const second = await boot(h.config);
    const b = await createApp({ config: h.config, db: second.db, masterKey: second.masterKey, logger: createLogger("silent"), clock });
    await b.start();
    const { createServer: httpServer } = await import("node:http");
    const srv = httpServer(b.app);
    await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(srv.address() as any).port}`;
    try {
      const post = (base: string, path: string, form: Record<string, string>, basic: [string, string]) =>
        fetch(base + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(basic.join(":")).toString("base64")}` }, body: new URLSearchParams(form) }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const once = await jag();
      const first = await post(h.url, "/oauth/token", { grant_type: JWT_BEARER, assertion: once }, [agent.client_id, agent.client_secret]);
      expect(first.status).toBe(200);
      const replay = await post(url, "/oauth/token", { grant_type: JWT_BEARER, assertion: once }, [agent.client_id, agent.client_secret]);
      expect(replay.body.error).toBe("invalid_grant");
      const t = (await post(url, "/oauth/token", { grant_type: JWT_BEARER, assertion: await jag() }, [agent.client_id, agent.client_secret])).body.access_token;
      expect((await post(url, "/oauth/introspect", { token: t }, [files.id, files.introspection_secret])).body.active).toBe(true);
      const id = (await h.admin("GET", "/svc/access-requests?status=approved")).body.items.find((i: any) => i.user_email === "alice@acme.example").id;
      await h.admin("POST", `/svc/access-requests/${id}/revoke`);
      await b.catchUp();
      expect((await post(url, "/oauth/introspect", { token: t }, [files.id, files.introspection_secret])).body.active).toBe(false);
    } finally {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
      await b.close();
      await second.db.$disconnect();
    }
  });
});
