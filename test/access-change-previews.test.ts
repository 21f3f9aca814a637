// Access change previews (POST /svc/v1/applications/:id/access-change-previews): for each kind of
// change, the predicted gains and losses must equal the actual difference after the change is made
// for real through the admin API (this test's database is throwaway). "Actual" is measured the way
// enforcement decides: the scope resolver introspection uses, and the SDK's own tool rule
// (decideTool) over the sdk-policy document the server serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { startMcpServer, SAMPLE_TOOLS, type McpTestServer } from "./helpers/mcp-servers";
import { mapAndActivate, register, rescan } from "./helpers/lifecycle-flow";
import { decideTool } from "../src/sdk/tool-policy";

let h: Harness;
let mcp: McpTestServer;
let app: { id: string; secret: string };
let reader: string;
let writer: string;
let group: string;
const u: string[] = [];
const PASSWORD = "a long enough password 3";

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  mcp = await startMcpServer({ tools: [...SAMPLE_TOOLS, { name: "ping", description: "pong" }] });
  app = await register(h, mcp.url);
  expect((await rescan(h, app.id)).status).toBe(200);
  await mapAndActivate(h, app.id, {
    scopes: { "files:read": "Read", "files:write": "Write" },
    mappings: { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] },
    publicTools: ["ping"],
  });
  reader = (await h.admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: app.id, scope_ids: ["files:read"] }] })).body.id;
  writer = (await h.admin("POST", "/svc/authmgr/roles", { name: "writer", grants: [{ resource_server_id: app.id, scope_ids: ["files:write"] }] })).body.id;
  for (let i = 0; i < 5; i++) u.push((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `p${i}@example.test`, username: `p${i}`, password: PASSWORD })).body.id);
  group = (await h.admin("POST", "/uflow/v2/groups", { name: "team" })).body.id;
  for (const m of [u[1], u[2]]) expect((await h.admin("POST", `/uflow/v2/groups/${group}/members`, { user_id: m })).status).toBeLessThan(300);
  expect((await h.admin("POST", `/uflow/v2/users/${u[0]}/role-bindings`, { tenant_id: h.workspaceId, role_id: reader })).status).toBe(201);
  expect((await h.admin("POST", `/uflow/v2/groups/${group}/role-bindings`, { tenant_id: h.workspaceId, role_id: writer })).status).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await mcp?.close();
});

type Access = Map<string, { scopes: Set<string>; tools: Set<string> }>;

/** Every member's access now, as enforcement decides it. */
async function actual(): Promise<Access> {
  const policy = (await h.request("GET", `/svc/resource-servers/${app.id}/sdk-policy`, { basic: [app.id, app.secret] })).body;
  const hashes = new Map(Object.entries((policy.definition_hashes ?? {}) as Record<string, string>));
  const members = await h.db.membership.findMany({ where: { tenantId: h.workspaceId }, select: { userId: true } });
  const out: Access = new Map();
  for (const { userId } of members) {
    const held = await h.services.rbac.resolver.userScopes(h.workspaceId, app.id, userId);
    const tools = new Set<string>();
    if (held !== null) for (const tool of Object.keys(policy.scope_matrix)) if (decideTool(policy, hashes, tool, [...held]).allowed) tools.add(tool);
    out.set(userId, { scopes: new Set(held ?? []), tools });
  }
  return out;
}

const sorted = (s: Iterable<string>) => [...s].sort();
function diff(before: Access, after: Access) {
  const out: any[] = [];
  for (const [userId, a] of before) {
    const b = after.get(userId) ?? { scopes: new Set<string>(), tools: new Set<string>() };
    const d = {
      user_id: userId,
      gains: { scopes: sorted([...b.scopes].filter((x) => !a.scopes.has(x))), tools: sorted([...b.tools].filter((x) => !a.tools.has(x))) },
      losses: { scopes: sorted([...a.scopes].filter((x) => !b.scopes.has(x))), tools: sorted([...a.tools].filter((x) => !b.tools.has(x))) },
    };
    if (d.gains.scopes.length + d.gains.tools.length + d.losses.scopes.length + d.losses.tools.length > 0) out.push(d);
  }
  return out.sort((x, y) => (x.user_id < y.user_id ? -1 : 1));
}

const preview = (change: unknown, token = h.adminToken) => h.request("POST", `/svc/v1/applications/${app.id}/access-change-previews`, { token, json: { change } });

/** Previews `change`, checks nothing was written, applies it for real with `apply`, and compares. */
async function predictsReality(change: unknown, apply: () => Promise<void>) {
  const before = await actual();
  const events = await h.db.auditEvent.count();
  const p = await preview(change);
  expect(p.status, p.text).toBe(200);
  expect(p.body.written).toBe(false);
  expect(p.body.truncated).toBe(false);
  expect(await h.db.auditEvent.count()).toBe(events); // nothing written
  expect(diff(before, await actual())).toEqual([]); // nothing changed
  await apply();
  const real = diff(before, await actual());
  expect(p.body.users).toEqual(real);
  expect(p.body.summary.users_gaining).toBe(real.filter((d) => d.gains.scopes.length + d.gains.tools.length > 0).length);
  expect(p.body.summary.users_losing).toBe(real.filter((d) => d.losses.scopes.length + d.losses.tools.length > 0).length);
  return p.body;
}

const ok = async (r: Promise<{ status: number; text: string }>) => {
  const res = await r;
  expect(res.status, res.text).toBeLessThan(300);
};

describe("predicted = actual, one kind of change after another", () => {
  it("binding_add for a group", async () => {
    const p = await predictsReality({ kind: "binding_add", subject_type: "group", subject_id: group, role_id: reader }, () =>
      ok(h.admin("POST", `/uflow/v2/groups/${group}/role-bindings`, { tenant_id: h.workspaceId, role_id: reader })),
    );
    expect(p.users.map((d: any) => d.user_id).sort()).toEqual([u[1], u[2]].sort());
    expect(p.summary.tools_gained).toEqual(["list_dir", "read_file"]);
    expect(p.warnings.map((w: any) => w.code)).not.toContain("scope_reaches_everyone"); // two of seven members
  });

  it("binding_add for a user, scoped to this application", async () => {
    await predictsReality({ kind: "binding_add", subject_type: "user", subject_id: u[3], role_id: writer, scope_type: "resource_server", scope_id: app.id }, () =>
      ok(h.admin("POST", `/uflow/v2/users/${u[3]}/role-bindings`, { tenant_id: h.workspaceId, role_id: writer, scope_type: "resource_server", scope_id: app.id })),
    );
  });

  it("role_grants: a role gains one scope and loses another", async () => {
    const p = await predictsReality({ kind: "role_grants", role_id: reader, add: ["files:write"], remove: ["files:read"] }, () =>
      ok(h.admin("PUT", `/svc/authmgr/roles/${reader}`, { name: "reader", grants: [{ resource_server_id: app.id, scope_ids: ["files:write"] }] })),
    );
    expect(p.summary.users_losing).toBeGreaterThan(0);
    expect(p.summary.users_gaining).toBeGreaterThan(0);
  });

  it("binding_remove", async () => {
    const binding = await h.db.roleBinding.findFirstOrThrow({ where: { tenantId: h.workspaceId, subjectType: "user", subjectId: u[0] } });
    const p = await predictsReality({ kind: "binding_remove", binding_id: binding.id }, () => ok(h.admin("DELETE", `/uflow/v2/role-bindings/${binding.id}`)));
    expect(p.users.map((d: any) => d.user_id)).toEqual([u[0]]);
  });

  it("user_suspend: the user loses every scope and every tool, public ones included", async () => {
    const p = await predictsReality({ kind: "user_suspend", user_id: u[2] }, () => ok(h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${u[2]}/suspend`, { reason: "preview test" })));
    expect(p.users[0].losses.tools).toContain("ping");
  });

  it("tool_mapping: a tool moves to another scope", async () => {
    await predictsReality({ kind: "tool_mapping", tool_name: "write_file", scope_ids: ["files:read"] }, () =>
      ok(h.admin("PUT", `/svc/resource-servers/${app.id}/tool-scope-map`, { mappings: [{ tool_name: "write_file", scope_ids: ["files:read"] }] })),
    );
  });

  it("tool_public: everyone gains the tool, with a warning", async () => {
    const tool = (await h.admin("GET", `/svc/resource-servers/${app.id}/tools`)).body.items.find((t: any) => t.tool_name === "delete_file");
    const p = await predictsReality({ kind: "tool_public", tool_name: "delete_file" }, () => ok(h.admin("POST", `/svc/resource-servers/${app.id}/tools/${tool.tool_id}/public`, { confirm: "delete_file" })));
    expect(p.warnings.map((w: any) => w.code)).toContain("tool_becomes_public");
    expect(p.summary.tools_gained).toEqual(["delete_file"]);
  });

  it("scope_delete: roles lose it and tools mapped only to it are denied to everyone, with a warning", async () => {
    const p = await predictsReality({ kind: "scope_delete", scope_id: "files:write" }, () => ok(h.admin("DELETE", `/svc/resource-servers/${app.id}/scopes/files:write`)));
    expect(p.summary.scopes_lost).toEqual(["files:write"]);
  });
});

describe("warnings, validation and who may preview", () => {
  it("warns when a scope would reach every active member", async () => {
    const everyone = (await h.admin("POST", "/uflow/v2/groups", { name: "everyone" })).body.id;
    const members = await h.db.membership.findMany({ where: { tenantId: h.workspaceId, status: "active" } });
    for (const m of members) await h.admin("POST", `/uflow/v2/groups/${everyone}/members`, { user_id: m.userId });
    const viewer = (await h.admin("POST", "/svc/authmgr/roles", { name: "viewer", grants: [{ resource_server_id: app.id, scope_ids: ["files:read"] }] })).body.id;
    const p = await preview({ kind: "binding_add", subject_type: "group", subject_id: everyone, role_id: viewer });
    expect(p.status, p.text).toBe(200);
    expect(p.body.warnings.map((w: any) => w.code)).toContain("scope_reaches_everyone");
  });

  it("refuses unknown kinds, roles, bindings and tools", async () => {
    expect((await preview({ kind: "rename_everything" })).status).toBe(400);
    expect((await preview({ kind: "binding_add", subject_type: "user", subject_id: u[4], role_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
    expect((await preview({ kind: "binding_remove", binding_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
    expect((await preview({ kind: "tool_public", tool_name: "no_such_tool" })).status).toBe(404);
    expect((await preview({ kind: "role_grants", role_id: writer, add: ["no:such"] })).status).toBe(400);
  });

  it("needs the admin or owner role; another workspace's application is 404", async () => {
    const auditorUser = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "pv-auditor@example.test", username: "pva", password: PASSWORD })).body.id;
    await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${auditorUser}`, { membership_type: "readonly_auditor" });
    const auditor = await h.login("pv-auditor@example.test", PASSWORD, h.workspaceId);
    expect((await preview({ kind: "user_suspend", user_id: u[4] }, auditor)).status).toBe(403);
    const member = await h.login("p4@example.test", PASSWORD, h.workspaceId);
    expect((await preview({ kind: "user_suspend", user_id: u[4] }, member)).status).toBe(403);
    const other = await h.createWorkspace("pv-other@example.test");
    expect((await preview({ kind: "user_suspend", user_id: u[4] }, other.token)).status).toBe(404);
  });
});
