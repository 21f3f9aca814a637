// The cockpit graph over real HTTP with the admin JWT: queries, mutations through the same services
// as REST, authentication and role errors with extensions.code, masking of unexpected errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { codesOf, gql } from "./graphql/client";
import {
  PreRegisterClientDocument,
  RegisterResourceServerDocument,
  ResourceServerDocument,
  ResourceServersDocument,
  RotateIntrospectionSecretDocument,
  WorkspaceDocument,
} from "./graphql/generated/graphql";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

const input = (over: Record<string, unknown> = {}) => ({
  name: "Files MCP",
  publicBaseUrl: "https://files.example.test",
  protectedBasePath: "/mcp",
  scopesSupported: ["files:read", "files:write"],
  ...over,
});

async function register(over: Record<string, unknown> = {}, token?: string) {
  const r = await gql(h, RegisterResourceServerDocument, { input: input(over) }, { token });
  expect(r.errors).toBeUndefined();
  return r.data!.registerResourceServer;
}

/** A user of the first workspace with the given membership type, and their admin JWT. */
async function userWithRole(email: string, role: "member" | "readonly_auditor" | "admin"): Promise<string> {
  const created = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: email.split("@")[0], password: "a-long-password" });
  expect(created.status).toBe(201);
  if (role !== "member") {
    const patched = await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${created.body.id}`, { membership_type: role });
    expect(patched.status).toBe(200);
  }
  return h.login(email, "a-long-password");
}

describe("queries", () => {
  it("answers the caller's workspace and role", async () => {
    const r = await gql(h, WorkspaceDocument, {});
    expect(r.status).toBe(200);
    expect(r.errors).toBeUndefined();
    expect(r.data!.workspace).toMatchObject({ id: h.workspaceId, name: "Acme", viewerRole: "owner" });
    expect(new Date(r.data!.workspace.createdAt).toISOString()).toBe(r.data!.workspace.createdAt);
  });

  it("lists resource servers with the same values as REST, badges and endpoints included", async () => {
    const created = await register({ name: "Listed", publicBaseUrl: "https://listed.example.test" });
    const rest = await h.admin("GET", `/svc/resource-servers/${created.resourceServer.id}`);
    const r = await gql(h, ResourceServersDocument, {});
    expect(r.errors).toBeUndefined();
    const rs = r.data!.resourceServers.find((s) => s.id === created.resourceServer.id)!;
    expect(rs).toMatchObject({
      workspaceId: h.workspaceId,
      name: "Listed",
      publicBaseUrl: rest.body.public_base_url,
      protectedBasePath: rest.body.protected_base_path,
      resourceUrl: "https://listed.example.test/mcp",
      validationMode: "auto",
      scopesSupported: ["files:read", "files:write"],
      registrationModes: ["dcr", "cimd", "prereg"],
      state: "pending_scan",
      scanGeneration: 0,
      lastSuccessfulGeneration: 0,
      lastScanStatus: null,
      setupCompletedAt: null,
      badges: { discovered: rest.body.badges.discovered, notLaunched: rest.body.badges.not_launched },
      endpoints: {
        issuerUrl: rest.body.issuer_url,
        jwksUri: rest.body.jwks_uri,
        introspectionEndpoint: rest.body.introspection_endpoint,
        resourceUrl: rest.body.resource_url,
        scopeMatrixUrl: rest.body.scope_matrix_url,
        manifestUrl: rest.body.manifest_url,
      },
      createdAt: rest.body.created_at,
      clientCounts: { total: 0, pending: 0, approved: 0, revoked: 0 },
      clients: [],
    });
    expect(rs.badges).toEqual({ discovered: false, notLaunched: true });
  });

  it("derives the Discovered badge from state and scan generation", async () => {
    const { resourceServer } = await register({ name: "Scanned", publicBaseUrl: "https://scanned.example.test" });
    // A scan is another module's job; set the stored state it would leave behind.
    await h.db.resourceServer.update({ where: { id: resourceServer.id }, data: { state: "needs_setup", scanGeneration: 1, lastScanStatus: "success" } });
    const r = await gql(h, ResourceServerDocument, { id: resourceServer.id });
    expect(r.data!.resourceServer).toMatchObject({ state: "needs_setup", lastScanStatus: "success", badges: { discovered: true, notLaunched: true } });
  });

  it("answers null for an unknown or deleted id, and BAD_USER_INPUT for a non-UUID", async () => {
    const unknown = await gql(h, ResourceServerDocument, { id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown.errors).toBeUndefined();
    expect(unknown.data).toEqual({ resourceServer: null });

    const { resourceServer } = await register({ name: "Doomed", publicBaseUrl: "https://doomed.example.test" });
    expect((await h.admin("DELETE", `/svc/resource-servers/${resourceServer.id}`)).status).toBe(204);
    expect((await gql(h, ResourceServerDocument, { id: resourceServer.id })).data).toEqual({ resourceServer: null });
    expect((await gql(h, ResourceServersDocument, {})).data!.resourceServers.map((s) => s.id)).not.toContain(resourceServer.id);

    const bad = await gql(h, ResourceServerDocument, { id: "not-a-uuid" });
    expect(bad.data).toEqual({ resourceServer: null });
    expect(bad.errors).toEqual([expect.objectContaining({ message: "id: must be a UUID", path: ["resourceServer"], extensions: { code: "BAD_USER_INPUT" } })]);
  });
});

describe("mutations", () => {
  it("registerResourceServer returns the secret once; it authenticates introspection; REST sees the server", async () => {
    const r = await gql(h, RegisterResourceServerDocument, { input: input({ name: "Registered", publicBaseUrl: "https://registered.example.test", registrationModes: ["prereg"] }) });
    expect(r.errors).toBeUndefined();
    const { introspectionSecret, resourceServer } = r.data!.registerResourceServer;
    expect(introspectionSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(resourceServer).toMatchObject({ name: "Registered", state: "pending_scan", registrationModes: ["prereg"], endpoints: { scopeMatrixUrl: `${h.url}/svc/resource-servers/${resourceServer.id}/sdk-policy` } });
    const rest = await h.admin("GET", `/svc/resource-servers/${resourceServer.id}`);
    expect(rest.status).toBe(200);
    expect(JSON.stringify(rest.body)).not.toContain(introspectionSecret);
    // The secret is real: introspection accepts it as the Basic password.
    const intro = await h.request("POST", "/oauth/introspect", { basic: [resourceServer.id, introspectionSecret], form: { token: "not-a-token" } });
    expect(intro.status).toBe(200);
    expect(intro.body).toEqual({ active: false });
  });

  it("registerResourceServer names the bad field in GraphQL terms and writes nothing", async () => {
    const before = await h.db.resourceServer.count();
    const r = await gql(h, RegisterResourceServerDocument, { input: input({ publicBaseUrl: "ftp://x.test", protectedBasePath: "mcp" }) });
    expect(r.data).toBeNull();
    expect(codesOf(r)).toEqual(["BAD_USER_INPUT"]);
    expect(r.errors![0]!.message).toMatch(/^input\.publicBaseUrl: .*; input\.protectedBasePath: /);
    expect(await h.db.resourceServer.count()).toBe(before);
  });

  it("registerResourceServer reports a duplicate resource_url as CONFLICT, as REST answers 409", async () => {
    await register({ name: "First", publicBaseUrl: "https://dup.example.test" });
    const r = await gql(h, RegisterResourceServerDocument, { input: input({ name: "Second", publicBaseUrl: "https://dup.example.test/" }) });
    expect(codesOf(r)).toEqual(["CONFLICT"]);
    expect(r.errors![0]!.message).toBe("a resource server with this resource_url already exists in the workspace");
  });

  it("rotateIntrospectionSecret returns a new secret and the old one is refused at once", async () => {
    const { resourceServer, introspectionSecret: old } = await register({ name: "Rotated", publicBaseUrl: "https://rotated.example.test" });
    const r = await gql(h, RotateIntrospectionSecretDocument, { id: resourceServer.id });
    expect(r.errors).toBeUndefined();
    const rotated = r.data!.rotateIntrospectionSecret;
    expect(rotated.introspectionSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.introspectionSecret).not.toBe(old);
    expect(rotated.resourceServer.id).toBe(resourceServer.id);
    expect(rotated.resourceServer.updatedAt).toBe(rotated.rotatedAt);
    const form = { token: "not-a-token" };
    expect((await h.request("POST", "/oauth/introspect", { basic: [resourceServer.id, old], form })).status).toBe(401);
    expect((await h.request("POST", "/oauth/introspect", { basic: [resourceServer.id, rotated.introspectionSecret], form })).status).toBe(200);
  });

  it("rotateIntrospectionSecret on an unknown id is NOT_FOUND", async () => {
    const r = await gql(h, RotateIntrospectionSecretDocument, { id: "00000000-0000-4000-8000-000000000000" });
    expect(r.data).toBeNull();
    expect(r.errors).toEqual([expect.objectContaining({ message: "resource server not found", extensions: { code: "NOT_FOUND" } })]);
  });

  it("preRegisterClient returns the client secret once; the client gets tokens and appears nested", async () => {
    const { resourceServer } = await register({ name: "With clients", publicBaseUrl: "https://with-clients.example.test" });
    const r = await gql(h, PreRegisterClientDocument, {
      resourceServerId: resourceServer.id,
      input: { clientName: "Nightly job", redirectUris: [], kind: "m2m", allowedScopes: ["files:read"], tokenLifetime: 600 },
    });
    expect(r.errors).toBeUndefined();
    const { clientId, clientSecret, client } = r.data!.preRegisterClient;
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client).toMatchObject({
      clientId,
      workspaceId: h.workspaceId,
      resourceServerId: resourceServer.id,
      clientName: "Nightly job",
      kind: "m2m",
      registrationMode: "prereg",
      status: "approved",
      grantTypes: ["client_credentials"],
      allowedScopes: ["files:read"],
      tokenLifetime: 600,
      redirectUris: [],
      revokedAt: null,
    });
    // The credential pair is real: the token endpoint issues a token for it.
    const token = await h.request("POST", "/oauth/token", { basic: [clientId, clientSecret!], form: { grant_type: "client_credentials", scope: "files:read" } });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: "Bearer", scope: "files:read", expires_in: 600 });

    const nested = await gql(h, ResourceServerDocument, { id: resourceServer.id });
    expect(nested.data!.resourceServer!.clients).toEqual([{ clientId, clientName: "Nightly job", kind: "m2m", status: "approved" }]);
    expect(JSON.stringify(nested)).not.toContain(clientSecret);
  });

  it("preRegisterClient validates its input and refuses an unknown scope with the service's error", async () => {
    const { resourceServer } = await register({ name: "Strict", publicBaseUrl: "https://strict.example.test" });
    const bad = await gql(h, PreRegisterClientDocument, { resourceServerId: resourceServer.id, input: { clientName: "x", redirectUris: ["http://evil.example.test/cb"], tokenLifetime: 5 } });
    expect(codesOf(bad)).toEqual(["BAD_USER_INPUT"]);
    expect(bad.errors![0]!.message).toMatch(/input\.redirectUris\.0: .*input\.tokenLifetime: /);
    const unknownScope = await gql(h, PreRegisterClientDocument, { resourceServerId: resourceServer.id, input: { clientName: "x", redirectUris: [], allowedScopes: ["nope:nope"] } });
    expect(codesOf(unknownScope)).toEqual(["BAD_USER_INPUT"]);
    expect(await h.db.client.count({ where: { resourceServerId: resourceServer.id } })).toBe(0);
  });
});

describe("nested clients", () => {
  it("filters by status and kind, oldest first, and counts by status", async () => {
    const { resourceServer } = await register({ name: "Filtered", publicBaseUrl: "https://filtered.example.test" });
    const ids: string[] = [];
    for (const [name, kind] of [["a", "m2m"], ["b", "agent"], ["c", "m2m"]] as const) {
      const r = await gql(h, PreRegisterClientDocument, { resourceServerId: resourceServer.id, input: { clientName: name, redirectUris: ["https://app.example.test/cb"], kind } });
      ids.push(r.data!.preRegisterClient.clientId);
    }
    // Revoke "c" through REST: the graph shows the same state.
    expect((await h.admin("POST", `/svc/resource-servers/${resourceServer.id}/clients/${ids[2]}/revoke`)).status).toBe(200);

    const all = await gql(h, ResourceServerDocument, { id: resourceServer.id });
    expect(all.data!.resourceServer!.clients.map((c) => c.clientName)).toEqual(["a", "b", "c"]);
    const approvedM2m = await gql(h, ResourceServerDocument, { id: resourceServer.id, status: "approved", kind: "m2m" });
    expect(approvedM2m.data!.resourceServer!.clients.map((c) => c.clientName)).toEqual(["a"]);
    const revoked = await gql(h, ResourceServerDocument, { id: resourceServer.id, status: "revoked" });
    expect(revoked.data!.resourceServer!.clients.map((c) => c.clientName)).toEqual(["c"]);

    const list = await gql(h, ResourceServersDocument, {});
    expect(list.data!.resourceServers.find((s) => s.id === resourceServer.id)!.clientCounts).toEqual({ total: 3, pending: 0, approved: 2, revoked: 1 });
  });

  it("never exposes a secret hash: Client has no such field", async () => {
    const r = await gql(h, `{ resourceServers { clients { secretHash } } }`);
    expect(codesOf(r)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
    const r2 = await gql(h, `{ resourceServers { introspectionSecretHash } }`);
    expect(codesOf(r2)).toEqual(["GRAPHQL_VALIDATION_FAILED"]);
  });
});

describe("authentication", () => {
  it("refuses a request without a token with 401 UNAUTHENTICATED and a Bearer challenge", async () => {
    const r = await gql(h, WorkspaceDocument, {}, { token: null });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="toolgate-admin"');
    expect(r.data).toBeUndefined();
    expect(r.errors).toEqual([{ message: "missing bearer token", extensions: { code: "UNAUTHENTICATED" } }]);
  });

  it("refuses a garbage or foreign-signed token with 401 UNAUTHENTICATED", async () => {
    const r = await gql(h, WorkspaceDocument, {}, { token: "abc.def.ghi" });
    expect(r.status).toBe(401);
    expect(r.errors).toEqual([{ message: "invalid or expired token", extensions: { code: "UNAUTHENTICATED" } }]);
  });

  it("refuses a signed token without a tenant: 401 tenant_id required in JWT", async () => {
    const token = await h.adminTokenWithoutTenant();
    const r = await gql(h, WorkspaceDocument, {}, { token });
    expect(r.status).toBe(401);
    expect(r.errors).toEqual([{ message: "tenant_id required in JWT", extensions: { code: "UNAUTHENTICATED" } }]);
  });

  it("refuses the JWT of a suspended member with 403 FORBIDDEN", async () => {
    const token = await userWithRole("suspended@example.test", "admin");
    expect((await gql(h, WorkspaceDocument, {}, { token })).errors).toBeUndefined();
    const user = await h.db.user.findUniqueOrThrow({ where: { tenantId_email: { tenantId: h.workspaceId, email: "suspended@example.test" } } });
    expect((await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${user.id}`, { status: "suspended" })).status).toBe(200);
    const r = await gql(h, WorkspaceDocument, {}, { token });
    expect(r.status).toBe(403);
    expect(r.errors).toEqual([{ message: "not an active member of this workspace", extensions: { code: "FORBIDDEN" } }]);
  });
});

describe("roles (checked by the services)", () => {
  it("a member sees the workspace and their role, but no resource server, and cannot write", async () => {
    const token = await userWithRole("member@example.test", "member");
    const ws = await gql(h, WorkspaceDocument, {}, { token });
    expect(ws.data!.workspace.viewerRole).toBe("member");

    const list = await gql(h, ResourceServersDocument, {}, { token });
    expect(list.status).toBe(200);
    expect(list.data).toBeNull();
    expect(list.errors).toEqual([expect.objectContaining({ path: ["resourceServers"], extensions: { code: "FORBIDDEN" } })]);

    const before = await h.db.resourceServer.count();
    const write = await gql(h, RegisterResourceServerDocument, { input: input({ publicBaseUrl: "https://member.example.test" }) }, { token });
    expect(codesOf(write)).toEqual(["FORBIDDEN"]);
    expect(write.errors![0]!.message).toBe("this action needs the owner or admin role in the workspace");
    expect(await h.db.resourceServer.count()).toBe(before);
  });

  it("a read-only auditor reads everything but cannot register, rotate or pre-register", async () => {
    const { resourceServer } = await register({ name: "Audited", publicBaseUrl: "https://audited.example.test" });
    const token = await userWithRole("auditor@example.test", "readonly_auditor");
    const read = await gql(h, ResourceServerDocument, { id: resourceServer.id }, { token });
    expect(read.errors).toBeUndefined();
    expect(read.data!.resourceServer!.name).toBe("Audited");
    expect(codesOf(await gql(h, RegisterResourceServerDocument, { input: input({ publicBaseUrl: "https://auditor.example.test" }) }, { token }))).toEqual(["FORBIDDEN"]);
    expect(codesOf(await gql(h, RotateIntrospectionSecretDocument, { id: resourceServer.id }, { token }))).toEqual(["FORBIDDEN"]);
    expect(codesOf(await gql(h, PreRegisterClientDocument, { resourceServerId: resourceServer.id, input: { clientName: "x", redirectUris: [] } }, { token }))).toEqual(["FORBIDDEN"]);
  });
});

describe("unexpected errors", () => {
  it("are masked: generic message, INTERNAL_SERVER_ERROR, no detail", async () => {
    const { resourceServer } = await register({ name: "Corrupt", publicBaseUrl: "https://corrupt.example.test" });
    // A state outside the enum is a bug somewhere else; the graph must not leak what it found.
    await h.db.resourceServer.update({ where: { id: resourceServer.id }, data: { state: "exploded-secretly" } });
    const r = await gql(h, ResourceServerDocument, { id: resourceServer.id });
    expect(r.data).toEqual({ resourceServer: null });
    expect(r.errors).toEqual([{ message: "Unexpected error.", locations: expect.any(Array), path: ["resourceServer", "state"], extensions: { code: "INTERNAL_SERVER_ERROR" } }]);
    expect(JSON.stringify(r)).not.toContain("exploded");
    await h.db.resourceServer.update({ where: { id: resourceServer.id }, data: { deletedAt: new Date() } });
  });
});

describe("GraphiQL", () => {
  it("is served to a browser on GET without a token", async () => {
    const res = await fetch(`${h.url}/graphql`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("Toolgate cockpit graph");
    // Self-contained: no script or stylesheet is loaded from a CDN (works without internet).
    expect(html).not.toMatch(/https?:\/\/(unpkg\.com|cdn\.jsdelivr\.net|esm\.sh)/);
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']?https?:/);
  });

  it("does not answer a GET query without a token", async () => {
    const res = await fetch(`${h.url}/graphql?query=${encodeURIComponent("{ workspace { name } }")}`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(401);
  });
});
