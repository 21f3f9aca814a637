// The lifecycle in the cockpit graph: the same services as REST (same state changes, drift events
// and errors), tenant isolation, and an N+1 guard: servers -> tools -> scopes with the computed
// setup/matrix/manifest fields costs the same number of SQL statements for 1 server as for 4.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, startRawServer, type McpTestServer, type RawTestServer } from "./helpers/mcp-servers";
import { createRole, register, rescan } from "./helpers/lifecycle-flow";
import { gql, codesOf } from "./graphql/client";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
let mcp: McpTestServer;
let broken: RawTestServer;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
  broken = await startRawServer("http500");
});
afterAll(async () => {
  await mcp?.close();
  await broken?.close();
  await h?.close();
});

const NESTED = /* GraphQL */ `
  query Lifecycle {
    resourceServers {
      id
      state
      badges { discovered notLaunched }
      tools { name source isPublic stale scopes { scopeId name } }
      scopes { scopeId tools { name } }
      setup { canActivate reason items { id ok detail } }
      scopeMatrix { entries { toolName scopeIds } deniedTools publicTools }
      manifestStatus { pushed valid unmappedTools }
      accessPolicy { enabled firstTimeGrant defaultRoleName }
      driftEvents(undismissed: true) { eventType payload { toolName priorScopeId } }
    }
  }
`;

async function mapped(i: number): Promise<string> {
  const rs = await register(h, mcp.url, { scopes: ["files:read", "files:write"], name: `gql ${i}` });
  expect((await rescan(h, rs.id)).status).toBe(200);
  const r = await h.admin("PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, {
    mappings: SAMPLE_TOOLS.map((t, n) => ({ tool_name: t.name, scope_ids: n % 2 ? ["files:read", "files:write"] : ["files:read"] })),
  });
  expect(r.status).toBe(200);
  return rs.id;
}

describe("N+1 guard", () => {
  it("servers -> tools -> scopes (+ setup, matrix, manifest, policy, drift) does not grow with rows", async () => {
    const first = await mapped(0);
    statements.length = 0;
    const small = await gql<any, any>(h, NESTED);
    expect(small.errors).toBeUndefined();
    const smallCount = statements.length;
    const smallSql = [...statements];
    expect(small.data.resourceServers).toHaveLength(1);
    expect(small.data.resourceServers[0].tools).toHaveLength(4);
    expect(small.data.resourceServers[0].tools.find((t: { name: string }) => t.name === "write_file").scopes.map((s: { scopeId: string }) => s.scopeId)).toEqual(["files:read", "files:write"]);
    // The counter is live and sees the join rows read inside the list's statements.
    expect(smallSql.some((s) => /ToolScope/.test(s))).toBe(true);

    for (let i = 1; i <= 3; i++) await mapped(i);
    statements.length = 0;
    const large = await gql<any, any>(h, NESTED);
    expect(large.errors).toBeUndefined();
    expect(large.data.resourceServers).toHaveLength(4);
    expect(large.data.resourceServers.flatMap((s: { tools: unknown[] }) => s.tools)).toHaveLength(16);
    expect(statements.length, `for 4 servers:\n${statements.join("\n")}\n\nfor 1:\n${smallSql.join("\n")}`).toBe(smallCount);
    // Actor, the service's list, the selection read and one statement per nested relation
    // (tools, their join rows and scopes; scopes, theirs and tools; drift; policy and role), then
    // the batched loaders (four facts, one manifest): 20, whatever the number of rows.
    expect(smallCount).toBeLessThanOrEqual(20);

    const one = large.data.resourceServers.find((s: { id: string }) => s.id === first);
    expect(one.setup.items.map((i: { id: string; ok: boolean }) => [i.id, i.ok])).toEqual([
      ["tools_known", true],
      ["scopes_defined", true],
      ["all_tools_mapped", true],
      ["access_policy_set", false],
    ]);
    // Same answer as REST.
    const rest = (await h.admin("GET", `/svc/resource-servers/${first}/scope-matrix`)).body;
    expect(Object.fromEntries(one.scopeMatrix.entries.map((e: { toolName: string; scopeIds: string[] }) => [e.toolName, e.scopeIds]))).toEqual(rest.scope_matrix);
    expect(one.badges).toEqual({ discovered: true, notLaunched: true });
  });
});

describe("mutations go through the services", () => {
  it("scopes, mapping, public, access policy, activation, drift and dismissal", async () => {
    const rs = await register(h, mcp.url, { name: "gql flow" });
    const rescanned = await gql<any, any>(h, `mutation($id: ID!) { rescanResourceServer(id: $id) { state scanGeneration tools { id name } } }`, { id: rs.id });
    expect(rescanned.errors).toBeUndefined();
    expect(rescanned.data.rescanResourceServer).toMatchObject({ state: "needs_setup", scanGeneration: 1 });
    const tools = rescanned.data.rescanResourceServer.tools as { id: string; name: string }[];

    const scope = await gql<any, any>(h, `mutation($rs: ID!) { createScope(resourceServerId: $rs, input: { scopeId: "files:read", name: "Read" }) { scopeId name } }`, { rs: rs.id });
    expect(scope.data.createScope).toEqual({ scopeId: "files:read", name: "Read" });
    const dup = await gql<any, any>(h, `mutation($rs: ID!) { createScope(resourceServerId: $rs, input: { scopeId: "files:read", name: "Again" }) { scopeId } }`, { rs: rs.id });
    expect(codesOf(dup)).toEqual(["CONFLICT"]);
    const bad = await gql<any, any>(h, `mutation($rs: ID!) { createScope(resourceServerId: $rs, input: { scopeId: "has space", name: "x" }) { scopeId } }`, { rs: rs.id });
    expect(codesOf(bad)).toEqual(["BAD_USER_INPUT"]);
    expect(bad.errors![0]!.message).toMatch(/^input\.id: /);

    const blocked = await gql<any, any>(h, `mutation($id: ID!) { activateResourceServer(id: $id) { state } }`, { id: rs.id });
    expect(codesOf(blocked)).toEqual(["CONFLICT"]);
    expect(blocked.errors![0]!.extensions!.failed).toEqual(["all_tools_mapped", "access_policy_set"]);

    const map = await gql<any, any>(
      h,
      `mutation($rs: ID!, $m: [ToolScopeMappingInput!]!) { setToolScopes(resourceServerId: $rs, mappings: $m) { scopeMatrix { deniedTools } } }`,
      { rs: rs.id, m: SAMPLE_TOOLS.filter((t) => t.name !== "list_dir").map((t) => ({ toolName: t.name, scopeIds: ["files:read"] })) },
    );
    expect(map.data.setToolScopes.scopeMatrix.deniedTools).toEqual(["list_dir"]);
    const unknown = await gql<any, any>(h, `mutation($rs: ID!) { setToolScopes(resourceServerId: $rs, mappings: [{ toolName: "nope", scopeIds: [] }]) { id } }`, { rs: rs.id });
    expect(unknown.errors![0]!.message).toMatch(/unknown tool "nope"/);

    const listDir = tools.find((t) => t.name === "list_dir")!.id;
    const wrong = await gql<any, any>(h, `mutation($rs: ID!, $t: ID!) { setToolPublic(resourceServerId: $rs, toolId: $t, confirm: "nope") { isPublic } }`, { rs: rs.id, t: listDir });
    expect(codesOf(wrong)).toEqual(["BAD_USER_INPUT"]);
    const pub = await gql<any, any>(h, `mutation($rs: ID!, $t: ID!) { setToolPublic(resourceServerId: $rs, toolId: $t, confirm: "list_dir") { name isPublic } }`, { rs: rs.id, t: listDir });
    expect(pub.data.setToolPublic).toEqual({ name: "list_dir", isPublic: true });

    const role = await createRole(h, h.workspaceId, "gql-viewer");
    const policy = await gql<any, any>(h, `mutation($rs: ID!, $role: ID) { setAccessPolicy(resourceServerId: $rs, input: { enabled: true, defaultRoleId: $role }) { enabled firstTimeGrant defaultRoleId defaultRoleName } }`, { rs: rs.id, role });
    expect(policy.data.setAccessPolicy).toEqual({ enabled: true, firstTimeGrant: "default_role", defaultRoleId: role, defaultRoleName: "gql-viewer" });

    const act = await gql<any, any>(h, `mutation($id: ID!) { activateResourceServer(id: $id) { state setupCompletedBy badges { notLaunched } } }`, { id: rs.id });
    expect(act.data.activateResourceServer).toEqual({ state: "ready", setupCompletedBy: h.ownerId, badges: { notLaunched: false } });

    const del = await gql<any, any>(h, `mutation($rs: ID!) { deleteScope(resourceServerId: $rs, scopeId: "files:read") }`, { rs: rs.id });
    expect(del.data.deleteScope).toBe(true);
    const drift = await gql<any, any>(h, `query($id: ID!) { resourceServer(id: $id) { driftEvents { id eventType payload { priorScopeId priorScopeName toolsAffected } } } }`, { id: rs.id });
    const [event] = drift.data.resourceServer.driftEvents;
    expect(event).toMatchObject({ eventType: "scope_deleted", payload: { priorScopeId: "files:read", priorScopeName: "Read", toolsAffected: 3 } });
    const dismissed = await gql<any, any>(h, `mutation($rs: ID!, $e: ID!) { dismissDriftEvent(resourceServerId: $rs, eventId: $e) { dismissedBy dismissedAt } }`, { rs: rs.id, e: event.id });
    expect(dismissed.data.dismissDriftEvent.dismissedBy).toBe(h.ownerId);
    // REST sees what the graph did.
    expect((await h.admin("GET", `/svc/resource-servers/${rs.id}/drift-events?undismissed=true`)).body.count).toBe(0);
  });

  it("a failed rescan is UPSTREAM_FAILED with the failure_reason", async () => {
    const rs = await register(h, broken.url);
    const r = await gql<any, any>(h, `mutation($id: ID!) { rescanResourceServer(id: $id) { state } }`, { id: rs.id });
    expect(codesOf(r)).toEqual(["UPSTREAM_FAILED"]);
    expect(r.errors![0]!.extensions!.failure_reason).toMatch(/HTTP 500/);
    expect((await h.admin("GET", `/svc/resource-servers/${rs.id}`)).body.state).toBe("scan_failed");
  });
});

describe("isolation", () => {
  it("another workspace reads null and mutates nothing", async () => {
    const id = await mapped(99);
    const other = await h.createWorkspace("gql-lifecycle-iso@example.test");
    const read = await gql<any, any>(h, `query($id: ID!) { resourceServer(id: $id) { id tools { name } } }`, { id }, { token: other.token });
    expect(read.data.resourceServer).toBeNull();
    for (const [q, v] of [
      [`mutation($id: ID!) { rescanResourceServer(id: $id) { id } }`, { id }],
      [`mutation($id: ID!) { activateResourceServer(id: $id) { id } }`, { id }],
      [`mutation($id: ID!) { createScope(resourceServerId: $id, input: { scopeId: "x", name: "x" }) { id } }`, { id }],
      [`mutation($id: ID!) { deleteScope(resourceServerId: $id, scopeId: "files:read") }`, { id }],
      [`mutation($id: ID!) { setToolScopes(resourceServerId: $id, mappings: [{ toolName: "read_file", scopeIds: [] }]) { id } }`, { id }],
      [`mutation($id: ID!) { setAccessPolicy(resourceServerId: $id, input: { enabled: false }) { enabled } }`, { id }],
    ] as const) {
      const r = await gql<any, any>(h, q, v, { token: other.token });
      expect(codesOf(r), q).toEqual(["NOT_FOUND"]);
    }
    expect((await h.admin("GET", `/svc/resource-servers/${id}/scope-matrix`)).body.scope_matrix.read_file).toEqual(["files:read"]);
    expect((await h.admin("GET", `/svc/resource-servers/${id}/access-policy`)).body.configured).toBe(false);
  });
});
