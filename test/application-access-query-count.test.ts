// N+1 guard for the per-application access views on the graph (src/graphql/types/application-access.ts):
// one application's tool exposure, scope access and impact, assignments, end-user access and
// effective access cost the same number of SQL statements on a small application as on one with
// three times the tools and many more users, groups, roles, bindings and clients; and one user's
// effective access over the list of applications costs the same for 1 application as for 4.
// Statements are counted as test/graphql-query-count.test.ts and test/cockpit-query-count.test.ts
// do, on the second read (the resolver's and the runtime policy's per-entry caches warm, as a
// user's would be).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { mapAndActivate, register, rescan } from "./helpers/lifecycle-flow";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { gql } from "./graphql/client";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
const mcps: McpTestServer[] = [];
beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
});
afterAll(async () => {
  for (const m of mcps) await m.close();
  await h?.close();
});

/** A ready application with the sample tools and `extra` more, all mapped. */
async function readyApp(extra: number): Promise<string> {
  const tools = [...SAMPLE_TOOLS, ...Array.from({ length: extra }, (_, i) => ({ name: `extra_${i}` }))];
  const mcp = await startMcpServer({ tools });
  mcps.push(mcp);
  const rs = await register(h, mcp.url);
  expect((await rescan(h, rs.id)).status).toBe(200);
  const mappings: Record<string, string[]> = { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] };
  for (let i = 0; i < extra; i++) mappings[`extra_${i}`] = [i % 2 ? "files:read" : "files:write"];
  await mapAndActivate(h, rs.id, { scopes: { "files:read": "Read files", "files:write": "Write files" }, mappings });
  return rs.id;
}

let n = 0;
async function user(): Promise<string> {
  const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `qc${++n}@example.test`, username: `qc${n}` });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
async function role(rsId: string, scopes: string[]): Promise<string> {
  const r = await h.admin("POST", "/svc/authmgr/roles", { name: `Role ${++n}`, grants: [{ resource_server_id: rsId, scope_ids: scopes }] });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
async function bind(path: string, roleId: string, extra: Record<string, unknown> = {}) {
  const r = await h.admin("POST", `${path}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId, ...extra });
  expect(r.status, r.text).toBe(201);
}
async function group(members: string[], roles: string[]): Promise<void> {
  const g = (await h.admin("POST", "/uflow/v2/groups", { name: `group ${++n}` })).body;
  for (const u of members) expect((await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u })).status).toBe(201);
  for (const r of roles) await bind(`/uflow/v2/groups/${g.id}`, r);
}

const VIEWS = `query($id: ID!, $user: ID!) { resourceServer(id: $id) {
  toolExposure { toolId users groups clients roles { roleName } cursor }
  scopeAccess { scopeId tools { name } toolsCount roles { roleName } usersCount cursor }
  scopeImpact(scopeId: "files:read") { usersCount holders { userId email through { bindingId via roleName } cursor } }
  accessAssignments { bindingId subjectName roleName scopes grantedByEmail cursor }
  endUserAccess { userId scopes tools via { roleName } lastTokenIssuedAt cursor }
  effectiveAccess(userId: $user) { scopes tools { name } paths { via roleName scopes { scope tools } } expiredBindings { bindingId } }
} }`;
const LIST = `query($user: ID!) { resourceServers { id effectiveAccess(userId: $user) { scopes tools { name } paths { via roleName } } } }`;

/** Statements run answering `query` the second time, the answer, and the statements. */
async function cost(query: string, variables: Record<string, unknown>) {
  const first = await gql<any, any>(h, query, variables);
  expect(first.errors, JSON.stringify(first.errors)).toBeUndefined();
  statements.length = 0;
  const r = await gql<any, any>(h, query, variables);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return { count: statements.length, sql: [...statements], data: r.data };
}

/** The rows an answer shows, per view. */
function rows(d: any) {
  const rs = d.resourceServer;
  return {
    tools: rs.toolExposure.length,
    holders: rs.scopeImpact.holders.length,
    assignments: rs.accessAssignments.length,
    endUsers: rs.endUserAccess.length,
    paths: rs.effectiveAccess.paths.length,
    roles: rs.toolExposure.flatMap((t: any) => t.roles).length,
  };
}

describe("the per-application access views' SQL statements", () => {
  it("do not grow with the rows the views show", async () => {
    const small = await readyApp(0);
    const viewer = await role(small, ["files:read"]);
    const alice = await user();
    await bind(`/uflow/v2/users/${alice}`, viewer);
    await group([alice], [viewer]);
    const few = await cost(VIEWS, { id: small, user: alice });
    expect(few.count).toBeGreaterThan(0); // the counter is live (0 === 0 would prove nothing)

    const large = await readyApp(8);
    const roles = [await role(large, ["files:read"]), await role(large, ["files:read", "files:write"]), await role(large, ["files:write"])];
    const people: string[] = [];
    for (let i = 0; i < 8; i++) people.push(await user());
    for (const p of people.slice(0, 4)) await bind(`/uflow/v2/users/${p}`, roles[1]!, { scope_type: "resource_server", scope_id: large });
    await group(people.slice(2, 7), roles);
    await group(people.slice(0, 3), [roles[0]!]);
    await bind(`/uflow/v2/users/${people[2]}`, roles[2]!, { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    for (let i = 0; i < 3; i++) await insertClient(h, { tenantId: h.workspaceId, allowedScopes: ["files:read"] });
    const many = await cost(VIEWS, { id: large, user: people[2] });

    const a = rows(few.data);
    const b = rows(many.data);
    for (const k of Object.keys(a) as (keyof typeof a)[]) expect(b[k], `${k} shows more rows`).toBeGreaterThan(a[k]);
    expect(many.count, `${JSON.stringify(b)}:\n${many.sql.join("\n")}\n\n${JSON.stringify(a)}:\n${few.sql.join("\n")}`).toBe(few.count);
  }, 120_000);

  it("one user's effective access over the list of applications does not grow with the applications", async () => {
    const q = await cost(LIST, { user: h.ownerId });
    const before = q.data.resourceServers.length;
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await register(h, `https://list${i}.example.test`);
    const more = await cost(LIST, { user: h.ownerId });
    expect(more.data.resourceServers.length).toBe(before + 3);
    expect(more.data.resourceServers.every((s: any) => s.effectiveAccess !== null)).toBe(true);
    expect(more.count, `${more.data.resourceServers.length} applications:\n${more.sql.join("\n")}\n\n${before}:\n${q.sql.join("\n")}`).toBe(q.count);
  }, 60_000);
});
