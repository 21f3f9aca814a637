// Role bindings (spec "Role binding (group subject)", "Group bindings and effective access"; user
// bindings: docs/decisions/0012-admin-interfaces.md) and effective access, over real HTTP and a real database, with an exact clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
const clock = new ManualClock(new Date("2026-05-01T12:00:00.000Z"));
let rs: string; // a live server of the workspace
let role: { id: string; name: string };
beforeAll(async () => {
  h = await startToolgate({ clock });
  rs = (await h.admin("POST", "/svc/resource-servers", { name: "Files", public_base_url: "https://files.example.test", protected_base_path: "/mcp", scopes_supported: ["files:read"] })).body.id;
  role = (await h.admin("POST", "/svc/authmgr/roles", { name: "Reader", grants: [{ resource_server_id: rs, scope_ids: ["files:read"] }] })).body;
});
afterAll(async () => h?.close());

let seq = 0;
async function member(): Promise<string> {
  return (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `b${++seq}@example.test`, username: `b${seq}` })).body.id;
}
async function group(): Promise<string> {
  return (await h.admin("POST", "/uflow/v2/groups", { name: `bg-${++seq}` })).body.id;
}
/** A client row in a workspace (the clients module's API is not what is under test here). */
async function client(tenantId = h.workspaceId) {
  return insertClient(h, { tenantId, clientId: `client-${++seq}` });
}
const bind = (path: string, body: Record<string, unknown>) => h.admin("POST", path, { tenant_id: h.workspaceId, role_id: role.id, ...body });

describe("POST /uflow/v2/groups/:group_id/role-bindings", () => {
  it("returns the created RoleBinding row (201), tenant-wide by default", async () => {
    const g = await group();
    const r = await bind(`/uflow/v2/groups/${g}/role-bindings`, {});
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: h.workspaceId,
      workspace_id: h.workspaceId,
      role_id: role.id,
      subject_type: "group",
      subject_id: g,
      scope_type: null,
      scope_id: null,
      conditions: null,
      expires_at: null,
      source: "api",
      created_at: clock.now().toISOString(),
      created_by: h.ownerId,
    });
    expect((await h.admin("GET", `/uflow/v2/role-bindings/${r.body.id}`)).body).toEqual(r.body);
  });

  it("takes scope_type * and resource_server (with scope_id), conditions as given, expires_at ISO 8601", async () => {
    const g = await group();
    const star = await bind(`/uflow/v2/groups/${g}/role-bindings`, { scope_type: "*" });
    expect(star.body).toMatchObject({ scope_type: "*", scope_id: null });
    const conditions = { ip_ranges: ["10.0.0.0/8"], mfa: true, nested: { hours: { from: 9, to: 17 } } };
    const scoped = await bind(`/uflow/v2/groups/${g}/role-bindings`, { scope_type: "resource_server", scope_id: rs, conditions, expires_at: "2026-05-02T12:00:00+02:00" });
    expect(scoped.status).toBe(201);
    expect(scoped.body).toMatchObject({ scope_type: "resource_server", scope_id: rs, conditions, expires_at: "2026-05-02T10:00:00.000Z" });
    const explicitNull = await bind(`/uflow/v2/groups/${g}/role-bindings`, { scope_type: null, scope_id: null, conditions: null, expires_at: null });
    expect(explicitNull.body).toMatchObject({ scope_type: null, scope_id: null, conditions: null, expires_at: null });
  });

  it("accepts workspace_id in place of tenant_id", async () => {
    const g = await group();
    const r = await h.admin("POST", `/uflow/v2/groups/${g}/role-bindings`, { workspace_id: h.workspaceId, role_id: role.id });
    expect(r.status).toBe(201);
    expect(r.body.tenant_id).toBe(h.workspaceId);
  });

  it("refuses a tenant_id that is not the token's workspace (403) and writes nothing", async () => {
    const g = await group();
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const r = await bind(`/uflow/v2/groups/${g}/role-bindings`, { tenant_id: other.workspaceId });
    expect(r.status).toBe(403);
    expect(await h.db.roleBinding.count({ where: { subjectId: g } })).toBe(0);
  });

  it.each([
    [{ tenant_id: undefined }, "tenant_id"],
    [{ tenant_id: "acme" }, "tenant_id"],
    [{ workspace_id: "00000000-0000-4000-8000-000000000000" }, "workspace_id"],
    [{ role_id: undefined }, "role_id"],
    [{ role_id: "reader" }, "role_id"],
    [{ scope_type: "workspace" }, "scope_type"],
    [{ scope_type: "resource_server" }, "scope_id"],
    [{ scope_type: "resource_server", scope_id: "files" }, "scope_id"],
    [{ scope_id: "00000000-0000-4000-8000-000000000000" }, "scope_id"],
    [{ scope_type: "*", scope_id: "00000000-0000-4000-8000-000000000000" }, "scope_id"],
    [{ conditions: ["mfa"] }, "conditions"],
    [{ conditions: "mfa" }, "conditions"],
    [{ expires_at: "tomorrow" }, "expires_at"],
    [{ expires_at: "2026-06-01" }, "expires_at"],
    [{ expires_at: "2026-06-01T00:00:00" }, "expires_at"],
    [{ subject: "x" }, "body"],
  ])("refuses %j with 400 naming %s", async (over, field) => {
    const g = await group();
    const body: Record<string, unknown> = { tenant_id: h.workspaceId, role_id: role.id, ...over };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const r = await h.admin("POST", `/uflow/v2/groups/${g}/role-bindings`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.startsWith(`${field}: `)).toBe(true);
    expect(await h.db.roleBinding.count({ where: { subjectId: g } })).toBe(0);
  });

  it("refuses an expires_at at or before now", async () => {
    const g = await group();
    const r = await bind(`/uflow/v2/groups/${g}/role-bindings`, { expires_at: clock.now().toISOString() });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "expires_at: must be in the future" });
  });

  it("refuses a role or a server that is not this workspace's, naming the field", async () => {
    const g = await group();
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const theirRole = (await h.request("POST", "/svc/authmgr/roles", { token: other.token, json: { name: "theirs", grants: [] } })).body;
    const theirServer = (await h.request("POST", "/svc/resource-servers", { token: other.token, json: { name: "T", public_base_url: "https://t.example.test", protected_base_path: "/" } })).body;
    const r1 = await bind(`/uflow/v2/groups/${g}/role-bindings`, { role_id: theirRole.id });
    expect(r1.status).toBe(400);
    expect(r1.body).toEqual({ error: `role_id: no role ${theirRole.id} in this workspace` });
    const r2 = await bind(`/uflow/v2/groups/${g}/role-bindings`, { scope_type: "resource_server", scope_id: theirServer.id });
    expect(r2.status).toBe(400);
    expect(r2.body).toEqual({ error: `scope_id: no resource server ${theirServer.id} in this workspace` });
    const gone = (await h.admin("POST", "/svc/resource-servers", { name: "Gone", public_base_url: "https://gone.example.test", protected_base_path: "/" })).body.id;
    await h.admin("DELETE", `/svc/resource-servers/${gone}`);
    const r3 = await bind(`/uflow/v2/groups/${g}/role-bindings`, { scope_type: "resource_server", scope_id: gone });
    expect(r3.status).toBe(400);
    expect(r3.body.error).toMatch(/^scope_id: /);
  });

  it("answers 404 for an unknown group", async () => {
    expect((await bind("/uflow/v2/groups/00000000-0000-4000-8000-000000000000/role-bindings", {})).status).toBe(404);
  });
});

describe("user and service-account bindings", () => {
  it("binds a user (201) and lists the user's own bindings", async () => {
    const u = await member();
    const r = await bind(`/uflow/v2/users/${u}/role-bindings`, { scope_type: "resource_server", scope_id: rs });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ subject_type: "user", subject_id: u, scope_type: "resource_server", scope_id: rs });
    const list = await h.admin("GET", `/uflow/v2/users/${u}/role-bindings`);
    expect(list.body).toEqual({ items: [r.body], count: 1, next_cursor: null });
  });

  it("answers 404 for a user who is not a member of the workspace", async () => {
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    expect((await bind(`/uflow/v2/users/${other.userId}/role-bindings`, {})).status).toBe(404);
    expect((await h.admin("GET", `/uflow/v2/users/${other.userId}/role-bindings`)).status).toBe(404);
  });

  it("binds a client as a service account by its client_id or internal id; subject_id is the internal id", async () => {
    const c = await client();
    const r = await bind(`/svc/clientms/clients/${c.clientId}/role-bindings`, {});
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ subject_type: "service_account", subject_id: c.id, role_id: role.id });
    const byId = await h.admin("GET", `/svc/clientms/clients/${c.id}/role-bindings`);
    expect(byId.body).toEqual({ items: [r.body], count: 1, next_cursor: null });
  });

  it("answers 404 for an unknown client and for another workspace's client", async () => {
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const theirs = await client(other.workspaceId);
    expect((await bind("/svc/clientms/clients/no-such-client/role-bindings", {})).status).toBe(404);
    expect((await bind(`/svc/clientms/clients/${theirs.clientId}/role-bindings`, {})).status).toBe(404);
    expect((await h.admin("GET", `/svc/clientms/clients/${theirs.id}/role-bindings`)).status).toBe(404);
  });
});

describe("list and delete", () => {
  it("lists a group's bindings, expired ones included, as {items, count}", async () => {
    const g = await group();
    const a = (await bind(`/uflow/v2/groups/${g}/role-bindings`, {})).body;
    clock.advance(1);
    const b = (await bind(`/uflow/v2/groups/${g}/role-bindings`, { expires_at: new Date(clock.now().getTime() + 1000).toISOString() })).body;
    clock.advance(2000);
    const list = await h.admin("GET", `/uflow/v2/groups/${g}/role-bindings`);
    expect(list.body).toEqual({ items: [a, b], count: 2, next_cursor: null });
  });

  it("deletes a binding (204); again is 404; another workspace cannot see or delete it", async () => {
    const g = await group();
    const b = (await bind(`/uflow/v2/groups/${g}/role-bindings`, {})).body;
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    expect((await h.request("GET", `/uflow/v2/role-bindings/${b.id}`, { token: other.token })).status).toBe(404);
    expect((await h.request("DELETE", `/uflow/v2/role-bindings/${b.id}`, { token: other.token })).status).toBe(404);
    expect((await h.request("GET", `/uflow/v2/groups/${g}/role-bindings`, { token: other.token })).status).toBe(404);
    expect((await h.request("POST", `/uflow/v2/groups/${g}/role-bindings`, { token: other.token, json: { tenant_id: other.workspaceId, role_id: role.id } })).status).toBe(404);
    expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${b.id}`)).status).toBe(204);
    expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${b.id}`)).status).toBe(404);
    expect((await h.admin("GET", `/uflow/v2/groups/${g}/role-bindings`)).body).toEqual({ items: [], count: 0, next_cursor: null });
  });

  it("a plain member may not create or delete bindings", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "plain@example.test", username: "plain", password: "plain-password" });
    const token = await h.login("plain@example.test", "plain-password");
    const g = await group();
    expect((await h.request("POST", `/uflow/v2/groups/${g}/role-bindings`, { token, json: { tenant_id: h.workspaceId, role_id: role.id } })).status).toBe(403);
  });
});

describe("GET /uflow/v2/users/:user_id/effective-access", () => {
  it("lists direct and group bindings with exactly the spec's fields", async () => {
    const u = await member();
    const g1 = await group();
    const g2 = await group();
    const unrelated = await group();
    await h.admin("POST", `/uflow/v2/groups/${g1}/members`, { user_id: u });
    await h.admin("POST", `/uflow/v2/groups/${g2}/members`, { user_id: u });
    // Items come in creation order; a second apart so the order is not a tie.
    const direct = (await bind(`/uflow/v2/users/${u}/role-bindings`, { scope_type: "resource_server", scope_id: rs, expires_at: "2027-01-01T00:00:00Z" })).body;
    clock.advance(1000);
    const viaG1 = (await bind(`/uflow/v2/groups/${g1}/role-bindings`, { scope_type: "*" })).body;
    clock.advance(1000);
    const viaG2 = (await bind(`/uflow/v2/groups/${g2}/role-bindings`, {})).body;
    await bind(`/uflow/v2/groups/${unrelated}/role-bindings`, {});

    const r = await h.admin("GET", `/uflow/v2/users/${u}/effective-access`);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toEqual([
      { binding_id: direct.id, role_id: role.id, role_name: "Reader", subject: "user", subject_id: u, scope_type: "resource_server", scope_id: rs, expires_at: "2027-01-01T00:00:00.000Z" },
      { binding_id: viaG1.id, role_id: role.id, role_name: "Reader", subject: "group", subject_id: g1, scope_type: "*", scope_id: null, expires_at: null },
      { binding_id: viaG2.id, role_id: role.id, role_name: "Reader", subject: "group", subject_id: g2, scope_type: null, scope_id: null, expires_at: null },
    ]);
  });

  it("excludes a binding whose expires_at is at or before now (boundary exact)", async () => {
    const u = await member();
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    const expiresAt = new Date(clock.now().getTime() + 60_000);
    const direct = (await bind(`/uflow/v2/users/${u}/role-bindings`, { expires_at: expiresAt.toISOString() })).body;
    clock.advance(1);
    const viaGroup = (await bind(`/uflow/v2/groups/${g}/role-bindings`, { expires_at: expiresAt.toISOString() })).body;
    const ids = async () => (await h.admin("GET", `/uflow/v2/users/${u}/effective-access`)).body.map((i: { binding_id: string }) => i.binding_id);

    clock.set(new Date(expiresAt.getTime() - 1));
    expect(await ids()).toEqual([direct.id, viaGroup.id]);
    clock.set(expiresAt);
    expect(await ids()).toEqual([]);
    clock.set(new Date(expiresAt.getTime() + 1));
    expect(await ids()).toEqual([]);
  });

  it("reflects a group membership removal and a role rename", async () => {
    const u = await member();
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    const renamed = (await h.admin("POST", "/svc/authmgr/roles", { name: `before-${++seq}`, grants: [] })).body;
    await bind(`/uflow/v2/groups/${g}/role-bindings`, { role_id: renamed.id });
    await h.admin("PUT", `/svc/authmgr/roles/${renamed.id}`, { name: `after-${seq}`, grants: [] });
    expect((await h.admin("GET", `/uflow/v2/users/${u}/effective-access`)).body.map((i: { role_name: string }) => i.role_name)).toEqual([`after-${seq}`]);
    await h.admin("DELETE", `/uflow/v2/groups/${g}/members/${u}`);
    expect((await h.admin("GET", `/uflow/v2/users/${u}/effective-access`)).body).toEqual([]);
  });

  it("another workspace can neither add, bind nor see our user; a non-member is 404", async () => {
    const u = await member();
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    // Users are private to their workspace: our user's id is simply unknown there (decision 0017).
    const join = await h.request("POST", `/uflow/v2/tenants/${other.workspaceId}/memberships`, { token: other.token, json: { user_id: u } });
    expect(join.status).toBe(400);
    expect(join.body).toEqual({ error: "user_id: no such user" });
    const theirRole = (await h.request("POST", "/svc/authmgr/roles", { token: other.token, json: { name: "theirs", grants: [] } })).body;
    const theirs = await h.request("POST", `/uflow/v2/users/${u}/role-bindings`, { token: other.token, json: { tenant_id: other.workspaceId, role_id: theirRole.id } });
    expect(theirs.status).toBe(404);
    expect((await h.admin("GET", `/uflow/v2/users/${u}/effective-access`)).body).toEqual([]);
    expect((await h.request("GET", `/uflow/v2/users/${u}/effective-access`, { token: other.token })).status).toBe(404);
    expect((await h.request("GET", `/uflow/v2/users/${h.ownerId}/effective-access`, { token: other.token })).status).toBe(404);
  });
});
