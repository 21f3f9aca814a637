// The input-hygiene rule (src/shared/input-safety.ts) at each boundary, with exact answers: NUL
// characters and unpaired UTF-16 surrogates are refused as bad input naming the field, before any
// write, in path parameters (REST and the runtime routes), JSON bodies (role-binding conditions,
// redirect_uris, a runtime's manifest), OAuth forms and Basic credentials, and GraphQL arguments
// (literals, variables and JSON text the graph decodes). test/fuzz.test.ts covers every route.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { register, type Registered } from "./helpers/lifecycle-flow";
import { createClient, createServer, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";
import { gql } from "./graphql/client";

const UNSTORABLE = "must not contain NUL characters or unpaired surrogates";

let h: Harness;
let server: ServerFixture;
let client: ClientFixture;
let runtime: Registered;
let userId: string;
let roleId: string;

beforeAll(async () => {
  h = await startToolgate();
  server = await createServer(h);
  client = await createClient(h, server.id);
  runtime = await register(h, "https://runtime.example.test");
  userId = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "hygiene@example.test", username: "hygiene" })).body.id;
  roleId = (await h.admin("POST", "/svc/authmgr/roles", { name: "Hygiene", grants: [{ resource_server_id: server.id, scope_ids: ["files:read"] }] })).body.id;
});
afterAll(async () => h?.close());

const counts = async () => ({
  bindings: await h.db.roleBinding.count(),
  clients: await h.db.client.count(),
  groups: await h.db.group.count(),
  tools: await h.db.tool.count(),
  manifests: await h.db.sdkManifest.count(),
});

describe("path parameters", () => {
  it("refuses NUL in an admin path parameter with 400 naming it, on every :client_id route", async () => {
    for (const [method, suffix] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "/revoke"],
      ["PUT", "/approve-redirects"],
      ["POST", "/rotate-secret"],
    ] as const) {
      const r = await h.request(method, `/svc/resource-servers/${server.id}/clients/a%00b${suffix}`, { token: h.adminToken, json: method === "PATCH" ? { client_name: "x" } : undefined });
      expect([method, suffix, r.status, r.body]).toEqual([method, suffix, 400, { error: `client_id: ${UNSTORABLE}` }]);
    }
    const binding = await h.request("GET", "/svc/clientms/clients/%00/role-bindings", { token: h.adminToken });
    expect(binding.status).toBe(400);
    expect(binding.body).toEqual({ error: `client_id: ${UNSTORABLE}` });
  });

  it("refuses NUL in the runtime routes' :id (read without parseWith) with 400, whatever the credentials", async () => {
    const policy = await h.request("GET", "/svc/resource-servers/a%00b/sdk-policy", { basic: ["a\u0000b", runtime.secret] });
    expect(policy.status).toBe(400);
    expect(policy.body).toEqual({ error: `id: ${UNSTORABLE}` });
    const manifest = await h.request("PUT", "/svc/resource-servers/%00/sdk-manifest", { basic: ["\u0000", runtime.secret], json: { tools: [] } });
    expect(manifest.status).toBe(400);
    expect(manifest.body).toEqual({ error: `id: ${UNSTORABLE}` });
  });
});

describe("OAuth endpoints", () => {
  it("answers invalid_request for NUL in Basic credentials, whose id would be looked up", async () => {
    const r = await h.request("POST", "/oauth/introspect", { basic: ["a\u0000b", "secret"], form: { token: "t" } });
    expect(r.status).toBe(400);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ error: "invalid_request", error_description: `authorization: ${UNSTORABLE}` });
    const token = await h.request("POST", "/oauth/token", { basic: [client.client_id, "a%00b"], form: { grant_type: "client_credentials" } });
    expect(token.status).toBe(400);
    expect(token.body).toEqual({ error: "invalid_request", error_description: `authorization: ${UNSTORABLE}` });
  });

  it("names the form parameter that holds a NUL", async () => {
    const r = await h.request("POST", "/oauth/token", { basic: [client.client_id, client.client_secret], form: { grant_type: "client_credentials", scope: "a\u0000b" } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "invalid_request", error_description: `scope: ${UNSTORABLE}` });
  });
});

describe("JSON bodies", () => {
  it("refuses a lone surrogate in role-binding conditions (stored as JSON) with 400 naming the field, writing nothing", async () => {
    const before = await counts();
    for (const conditions of [{ mfa: "\ud800" }, { nested: { list: ["ok", "x\udfff"] } }]) {
      const r = await h.admin("POST", `/uflow/v2/users/${userId}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId, conditions });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: `${conditions.mfa ? "conditions.mfa" : "conditions.nested.list.1"}: ${UNSTORABLE}` });
    }
    const key = await h.admin("POST", `/uflow/v2/users/${userId}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId, conditions: { "\udc00": true } });
    expect(key.body).toEqual({ error: `conditions: ${UNSTORABLE}` });
    expect(await counts()).toEqual(before);
    // The same binding with storable conditions (characters above U+FFFF included) is created.
    const ok = await h.admin("POST", `/uflow/v2/users/${userId}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId, conditions: { note: "\ud83d\ude00" } });
    expect(ok.status).toBe(201);
    expect(ok.body.conditions).toEqual({ note: "\ud83d\ude00" });
  });

  it("refuses a lone surrogate in redirect_uris with 400 naming the field, writing nothing", async () => {
    const before = await counts();
    const r = await h.admin("POST", `/svc/resource-servers/${server.id}/clients`, { client_name: "App", kind: "human_app", redirect_uris: ["https://app.example.test/cb", "https://app.example.test/\udc00"] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: `redirect_uris.1: ${UNSTORABLE}` });
    const patch = await h.admin("PATCH", `/svc/resource-servers/${server.id}/clients/${client.client_id}`, { redirect_uris: ["https://app.example.test/\ud800"] });
    expect(patch.body).toEqual({ error: `redirect_uris.0: ${UNSTORABLE}` });
    expect(await counts()).toEqual(before);
  });

  it("refuses a manifest tool name with a lone surrogate before storing anything; valid pushes keep working", async () => {
    const push = (body: unknown) => h.request("PUT", `/svc/resource-servers/${runtime.id}/sdk-manifest`, { basic: [runtime.id, runtime.secret], json: body });
    const status = () => h.admin("GET", `/svc/resource-servers/${runtime.id}/sdk-manifest-status`);
    const before = { counts: await counts(), status: (await status()).body };
    const bad = { tools: [{ name: "read_file" }, { name: "lossy_\ud800" }] };
    for (let i = 0; i < 2; i++) {
      const r = await push(bad);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: `tools.1.name: ${UNSTORABLE}` });
    }
    expect({ counts: await counts(), status: (await status()).body }).toEqual(before);
    const good = { tools: [{ name: "read_file" }, { name: "emoji_\ud83d\ude00" }] };
    for (let i = 0; i < 2; i++) {
      const r = await push(good);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ pushed: true, valid: true, tool_count: 2 });
    }
  });

  it("names the field for NUL and for surrogates, and the limit for nesting", async () => {
    const nul = await h.admin("POST", "/uflow/v2/groups", { name: "a\u0000b" });
    expect(nul.body).toEqual({ error: `name: ${UNSTORABLE}` });
    const surrogate = await h.admin("POST", "/uflow/v2/groups", { name: "a\ud800b" });
    expect(surrogate.body).toEqual({ error: `name: ${UNSTORABLE}` });
  });

  it("says a field of the wrong type has the wrong type, and only a missing one is required", async () => {
    const login = (json: unknown) => h.request("POST", "/svc/uflow/auth/login", { json });
    expect((await login({ password: "x" })).body).toEqual({ error: "email: is required" });
    expect((await login({ email: 5, password: "x" })).body).toEqual({ error: "email: must be a string, not a number" });
    expect((await login({ email: null, password: "x" })).body).toEqual({ error: "email: must be a string, not null" });
    const group = await h.admin("POST", "/uflow/v2/groups", { name: ["a"] });
    expect([group.status, group.body]).toEqual([400, { error: "name: must be a string, not an array" }]);
    const rs = await h.admin("POST", "/svc/resource-servers", { name: "typed", public_base_url: "https://typed.example.test", protected_base_path: "/mcp", scopes_supported: "files:read" });
    expect([rs.status, rs.body]).toEqual([400, { error: "scopes_supported: must be an array, not a string" }]);
  });
});

describe("GraphQL arguments", () => {
  const CREATE_GROUP = "mutation($input: CreateGroupInput!) { createGroup(input: $input) { id name } }";

  it("refuses NUL in createGroup's name, as a literal and as a variable, with BAD_USER_INPUT naming the argument path", async () => {
    const before = await counts();
    const literal = await gql<any, any>(h, 'mutation { createGroup(input: { name: "a\\u0000b" }) { id } }');
    expect(literal.status).toBe(200);
    expect(literal.data).toBeUndefined();
    expect(literal.errors).toEqual([{ message: `input.name: ${UNSTORABLE}`, locations: [{ line: 1, column: 24 }], extensions: { code: "BAD_USER_INPUT" } }]);
    const variable = await gql<any, any>(h, CREATE_GROUP, { input: { name: "a\u0000b" } });
    expect(variable.status).toBe(200);
    expect(variable.errors).toEqual([{ message: `input.name: ${UNSTORABLE}`, locations: [{ line: 1, column: 51 }], extensions: { code: "BAD_USER_INPUT" } }]);
    expect(await counts()).toEqual(before);
  });

  it("refuses a lone surrogate in createGroup's name (a variable: GraphQL's parser refuses one in a literal)", async () => {
    const before = await counts();
    const r = await gql<any, any>(h, CREATE_GROUP, { input: { name: "\ud800", description: "ok" } });
    expect(r.status).toBe(200);
    expect(r.errors).toEqual([{ message: `input.name: ${UNSTORABLE}`, locations: [{ line: 1, column: 51 }], extensions: { code: "BAD_USER_INPUT" } }]);
    const literal = await gql<any, any>(h, 'mutation { createGroup(input: { name: "\\ud800" }) { id } }');
    expect(literal.errors?.[0]?.extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(await counts()).toEqual(before);
  });

  it("checks variable defaults, nested fields and GET queries too", async () => {
    const defaulted = await gql<any, any>(h, 'mutation($name: String! = "x\\u0000") { createGroup(input: { name: $name }) { id } }', {});
    expect(defaulted.errors?.map((e) => e.message)).toEqual([`input.name: ${UNSTORABLE}`]);
    const nested = await gql<any, any>(h, 'query($a: String) { groups { id members(after: $a) { userId } } }', { a: "\udfff" });
    expect(nested.errors?.map((e) => e.message)).toEqual([`after: ${UNSTORABLE}`]);
    const params = new URLSearchParams({ query: "query($q: String) { endUsers(q: $q) { userId } }", variables: JSON.stringify({ q: "a\u0000" }) });
    const get = await fetch(`${h.url}/graphql?${params}`, { headers: { authorization: `Bearer ${h.adminToken}`, accept: "application/json" } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ errors: [{ message: `q: ${UNSTORABLE}`, locations: [{ line: 1, column: 30 }], extensions: { code: "BAD_USER_INPUT" } }] });
  });

  it("refuses what JSON text decodes to (binding conditions) naming the decoded field", async () => {
    const before = await counts();
    const r = await gql<any, any>(h, "mutation($u: ID!, $input: CreateRoleBindingInput!) { createUserRoleBinding(userId: $u, input: $input) { id } }", {
      u: userId,
      input: { tenantId: h.workspaceId, roleId, conditions: '{"mfa":"\\ud800"}' },
    });
    expect(r.errors).toEqual([expect.objectContaining({ message: `input.conditions.mfa: ${UNSTORABLE}`, path: ["createUserRoleBinding"], extensions: { code: "BAD_USER_INPUT" } })]);
    expect(await counts()).toEqual(before);
  });
});
