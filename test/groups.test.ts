// Groups and group members (/uflow/v2/groups, docs/decisions/0012-admin-interfaces.md) over real HTTP and a
// real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

let seq = 0;
async function member(): Promise<string> {
  const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `g${++seq}@example.test`, username: `g${seq}` });
  return r.body.id;
}
async function group(name = `group-${++seq}`, description?: string) {
  const r = await h.admin("POST", "/uflow/v2/groups", { name, ...(description ? { description } : {}) });
  expect(r.status).toBe(201);
  return r.body;
}

describe("groups", () => {
  it("creates (201), gets and lists as {items, count}", async () => {
    const g = await group("Support team", "first line");
    expect(g).toMatchObject({ name: "Support team", description: "first line", tenant_id: h.workspaceId, workspace_id: h.workspaceId, member_count: 0 });
    expect(g.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}`)).body).toEqual(g);
    const list = await h.admin("GET", "/uflow/v2/groups");
    expect(list.body.count).toBe(list.body.items.length);
    expect(list.body.items).toContainEqual(g);
  });

  it("answers 409 for a duplicate name, 400 naming the field for bad input", async () => {
    const g = await group();
    expect((await h.admin("POST", "/uflow/v2/groups", { name: g.name })).status).toBe(409);
    for (const [body, field] of [
      [{}, "name"],
      [{ name: "  " }, "name"],
      [{ name: "x", description: 5 }, "description"],
      [{ name: "x", owner: "me" }, "body"],
    ] as const) {
      const r = await h.admin("POST", "/uflow/v2/groups", body);
      expect(r.status).toBe(400);
      expect(r.body.error.startsWith(`${field}: `)).toBe(true);
    }
  });

  it("deletes (204) with its members and bindings; then 404", async () => {
    const g = await group();
    const u = await member();
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: `r${++seq}`, grants: [] })).body;
    await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u });
    await h.admin("POST", `/uflow/v2/groups/${g.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.id });
    expect((await h.admin("DELETE", `/uflow/v2/groups/${g.id}`)).status).toBe(204);
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}`)).status).toBe(404);
    expect((await h.admin("DELETE", `/uflow/v2/groups/${g.id}`)).status).toBe(404);
    expect(await h.db.groupMember.count({ where: { groupId: g.id } })).toBe(0);
    expect(await h.db.roleBinding.count({ where: { subjectId: g.id } })).toBe(0);
    // With the binding gone, the role can be deleted.
    expect((await h.admin("DELETE", `/svc/authmgr/roles/${role.id}`)).status).toBe(204);
  });
});

describe("group members", () => {
  it("adds (201), lists with email and username, counts, removes (204)", async () => {
    const g = await group();
    const u = await member();
    const add = await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ group_id: g.id, user_id: u, user_email: `g${seq}@example.test`, user_username: `g${seq}` });
    const members = await h.admin("GET", `/uflow/v2/groups/${g.id}/members`);
    expect(members.body).toEqual({ items: [add.body], count: 1, next_cursor: null });
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}`)).body.member_count).toBe(1);

    expect((await h.admin("DELETE", `/uflow/v2/groups/${g.id}/members/${u}`)).status).toBe(204);
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}/members`)).body).toEqual({ items: [], count: 0, next_cursor: null });
    expect((await h.admin("DELETE", `/uflow/v2/groups/${g.id}/members/${u}`)).status).toBe(404);
  });

  it("adding a present member again is idempotent (200, same row)", async () => {
    const g = await group();
    const u = await member();
    const first = await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u });
    const again = await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}/members`)).body.count).toBe(1);
  });

  it("only members of the workspace can join (400 naming user_id); unknown group is 404", async () => {
    const g = await group();
    const other = await h.createWorkspace(`outsider${++seq}@example.test`);
    const r = await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: other.userId });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "user_id: not a member of this workspace" });
    const bad = await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: "x" });
    expect(bad.body.error).toMatch(/^user_id: /);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await h.admin("POST", `/uflow/v2/groups/${unknown}/members`, { user_id: h.ownerId })).status).toBe(404);
    expect((await h.admin("GET", `/uflow/v2/groups/${unknown}/members`)).status).toBe(404);
  });
});

describe("workspace isolation", () => {
  it("another workspace cannot see or change our groups or their members", async () => {
    const g = await group();
    const u = await member();
    await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u });
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const as = (method: string, path: string, json?: unknown) => h.request(method, path, { token: other.token, json });
    expect((await as("GET", "/uflow/v2/groups")).body).toEqual({ items: [], count: 0, next_cursor: null });
    for (const [method, path, json] of [
      ["GET", `/uflow/v2/groups/${g.id}`],
      ["DELETE", `/uflow/v2/groups/${g.id}`],
      ["GET", `/uflow/v2/groups/${g.id}/members`],
      ["POST", `/uflow/v2/groups/${g.id}/members`, { user_id: other.userId }],
      ["DELETE", `/uflow/v2/groups/${g.id}/members/${u}`],
    ] as [string, string, unknown?][]) {
      expect((await as(method, path, json)).status, `${method} ${path}`).toBe(404);
    }
    expect((await h.admin("GET", `/uflow/v2/groups/${g.id}/members`)).body.count).toBe(1);
    // The same name is free in the other workspace.
    expect((await as("POST", "/uflow/v2/groups", { name: g.name })).status).toBe(201);
  });

  it("a plain member may not read or write groups", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "plain@example.test", username: "plain", password: "plain-password" });
    const token = await h.login("plain@example.test", "plain-password");
    expect((await h.request("GET", "/uflow/v2/groups", { token })).status).toBe(403);
    expect((await h.request("POST", "/uflow/v2/groups", { token, json: { name: "mine" } })).status).toBe(403);
  });
});
