// Memberships (spec "Tenant membership", "Memberships" and the membership state table) over real
// HTTP and a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
const clock = new ManualClock(new Date("2026-03-01T10:00:00.000Z"));
beforeAll(async () => {
  h = await startToolgate({ clock });
});
afterAll(async () => h?.close());

const base = () => `/uflow/v2/tenants/${h.workspaceId}/memberships`;
let seq = 0;

/** A user of the Acme workspace who is not (or no longer) a member of it. */
const outsider = () => h.userWithoutMembership(`outsider${++seq}@example.test`);

/** A member of Acme created through the users endpoint; returns id and email. */
async function member(password?: string): Promise<{ id: string; email: string }> {
  const email = `member${++seq}@example.test`;
  const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: `m${seq}`, ...(password ? { password } : {}) });
  expect(r.status).toBe(201);
  return { id: r.body.id, email };
}

describe("POST memberships", () => {
  it("creates with the spec's defaults (member, active, source api) and answers 201", async () => {
    const userId = await outsider();
    const r = await h.admin("POST", base(), { user_id: userId });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      tenant_id: h.workspaceId,
      workspace_id: h.workspaceId,
      user_id: userId,
      membership_type: "member",
      status: "active",
      source: "api",
      external_id: null,
      suspended_at: null,
    });
    expect(r.body.user_email).toMatch(/^outsider\d+@example\.test$/);
  });

  it("is idempotent on (tenant, user): the existing row comes back unchanged with 200", async () => {
    const userId = await outsider();
    const first = await h.admin("POST", base(), { user_id: userId, membership_type: "contractor", external_id: "ext-1" });
    expect(first.status).toBe(201);
    const again = await h.admin("POST", base(), { user_id: userId, membership_type: "admin", status: "invited" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const list = await h.admin("GET", `${base()}?type=contractor`);
    expect(list.body.items.filter((m: { user_id: string }) => m.user_id === userId)).toHaveLength(1);
  });

  it("takes the given type, status, source and external_id; suspended at creation records suspended_at", async () => {
    const userId = await outsider();
    const r = await h.admin("POST", base(), { user_id: userId, membership_type: "readonly_auditor", status: "suspended", source: "scim", external_id: "okta|42" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ membership_type: "readonly_auditor", status: "suspended", source: "scim", external_id: "okta|42", suspended_at: clock.now().toISOString() });
  });

  it.each([
    [{ user_id: "not-a-uuid" }, "user_id"],
    [{}, "user_id"],
    [{ user_id: "00000000-0000-4000-8000-000000000000", membership_type: "superuser" }, "membership_type"],
    [{ user_id: "00000000-0000-4000-8000-000000000000", status: "banned" }, "status"],
    [{ user_id: "00000000-0000-4000-8000-000000000000", source: "" }, "source"],
    [{ user_id: "00000000-0000-4000-8000-000000000000", surprise: true }, "body"],
  ])("refuses %j with 400 naming %s", async (body, field) => {
    const r = await h.admin("POST", base(), body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}: `));
  });

  it("refuses an unknown user_id with 400 naming user_id (a body reference, not the addressed resource)", async () => {
    const r = await h.admin("POST", base(), { user_id: "00000000-0000-4000-8000-000000000000" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "user_id: no such user" });
  });
});

describe("GET memberships", () => {
  it("answers {items, count} and filters by status and by type", async () => {
    const a = await outsider();
    const b = await outsider();
    await h.admin("POST", base(), { user_id: a, status: "invited", membership_type: "contractor" });
    await h.admin("POST", base(), { user_id: b, status: "left", membership_type: "service_operator" });

    const all = await h.admin("GET", base());
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.items.length);
    expect(all.body.items.map((m: { user_id: string }) => m.user_id)).toEqual(expect.arrayContaining([h.ownerId, a, b]));

    const invited = await h.admin("GET", `${base()}?status=invited`);
    expect(invited.body.items.length).toBeGreaterThan(0);
    expect(invited.body.items.every((m: { status: string }) => m.status === "invited")).toBe(true);
    expect(invited.body.items.map((m: { user_id: string }) => m.user_id)).toContain(a);
    expect(invited.body.items.map((m: { user_id: string }) => m.user_id)).not.toContain(b);

    const ops = await h.admin("GET", `${base()}?type=service_operator`);
    expect(ops.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([b]);
    expect(ops.body.count).toBe(1);

    const both = await h.admin("GET", `${base()}?status=left&type=contractor`);
    expect(both.body).toEqual({ items: [], count: 0, next_cursor: null });

    const owners = await h.admin("GET", `${base()}?type=owner&status=active`);
    expect(owners.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([h.ownerId]);
  });

  it.each([
    ["status=banned", "status"],
    ["type=superuser", "type"],
  ])("refuses ?%s with 400 naming %s", async (query, field) => {
    const r = await h.admin("GET", `${base()}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}: `));
  });

  it("gets one row by user id; 404 for a user who is not a member", async () => {
    const one = await h.admin("GET", `${base()}/${h.ownerId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ user_id: h.ownerId, membership_type: "owner", status: "active" });
    const missing = await h.admin("GET", `${base()}/${await outsider()}`);
    expect(missing.status).toBe(404);
  });
});

describe("PATCH memberships (state table: any -> any of the four)", () => {
  it("applies any subset; suspended records suspended_at, leaving suspension clears it", async () => {
    const m = await member();
    const path = `${base()}/${m.id}`;
    const ext = await h.admin("PATCH", path, { external_id: "ad|1" });
    expect(ext.body).toMatchObject({ external_id: "ad|1", status: "active", membership_type: "member", suspended_at: null });

    // Small steps: the admin JWT is issued and checked with this clock too (1 h lifetime).
    clock.advance(60_000);
    const suspendedAt = clock.now().toISOString();
    const suspended = await h.admin("PATCH", path, { status: "suspended" });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ status: "suspended", external_id: "ad|1", suspended_at: suspendedAt });

    clock.advance(60_000);
    const still = await h.admin("PATCH", path, { status: "suspended", membership_type: "contractor" });
    expect(still.body).toMatchObject({ status: "suspended", membership_type: "contractor", suspended_at: suspendedAt });

    for (const status of ["invited", "left", "active"]) {
      const r = await h.admin("PATCH", path, { status });
      expect(r.body).toMatchObject({ status, suspended_at: null });
    }
    const cleared = await h.admin("PATCH", path, { external_id: null });
    expect(cleared.body.external_id).toBeNull();
    expect((await h.admin("GET", path)).body).toMatchObject({ status: "active", membership_type: "contractor", external_id: null });
  });

  it.each([
    [{ status: "banned" }, "status"],
    [{ membership_type: "god" }, "membership_type"],
    [{ source: "x" }, "body"],
    [{}, "body"],
  ])("refuses %j with 400 naming %s", async (body, field) => {
    const m = await member();
    const r = await h.admin("PATCH", `${base()}/${m.id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}: `));
  });

  it("answers 404 for a non-member", async () => {
    expect((await h.admin("PATCH", `${base()}/${await outsider()}`, { status: "left" })).status).toBe(404);
  });

  it("a suspended admin's token stops working at once", async () => {
    const m = await member("admin-password-1");
    await h.admin("PATCH", `${base()}/${m.id}`, { membership_type: "admin" });
    const token = await h.login(m.email, "admin-password-1");
    expect((await h.request("GET", base(), { token })).status).toBe(200);
    await h.admin("PATCH", `${base()}/${m.id}`, { status: "suspended" });
    expect((await h.request("GET", base(), { token })).status).toBe(403);
  });
});

describe("owner guards", () => {
  it("keeps the last active owner: no demotion, no suspension, no removal (409)", async () => {
    const path = `${base()}/${h.ownerId}`;
    for (const patch of [{ membership_type: "admin" }, { status: "suspended" }, { status: "left" }]) {
      const r = await h.admin("PATCH", path, patch);
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ error: "the workspace must keep at least one active owner" });
    }
    expect((await h.admin("DELETE", path)).status).toBe(409);
    expect((await h.admin("GET", path)).body).toMatchObject({ membership_type: "owner", status: "active" });
  });

  it("lets an owner step down once another active owner exists", async () => {
    const ws = await h.createWorkspace(`owners${++seq}@example.test`);
    const second = (await h.request("POST", `/uflow/v2/tenants/${ws.workspaceId}/users`, { token: ws.token, json: { email: `second${seq}@example.test`, username: "second" } })).body;
    const p = (u: string) => `/uflow/v2/tenants/${ws.workspaceId}/memberships/${u}`;
    const promoted = await h.request("PATCH", p(second.id), { token: ws.token, json: { membership_type: "owner" } });
    expect(promoted.status).toBe(200);
    const down = await h.request("PATCH", p(ws.userId), { token: ws.token, json: { membership_type: "admin" } });
    expect(down.status).toBe(200);
    expect(down.body.membership_type).toBe("admin");
  });

  it("only an owner may grant, change or remove the owner role (403 for an admin)", async () => {
    const admin = await member("admin-password-2");
    await h.admin("PATCH", `${base()}/${admin.id}`, { membership_type: "admin" });
    const token = await h.login(admin.email, "admin-password-2");
    const self = await h.request("PATCH", `${base()}/${admin.id}`, { token, json: { membership_type: "owner" } });
    expect(self.status).toBe(403);
    const owner = await h.request("PATCH", `${base()}/${h.ownerId}`, { token, json: { status: "suspended" } });
    expect(owner.status).toBe(403);
    const del = await h.request("DELETE", `${base()}/${h.ownerId}`, { token });
    expect(del.status).toBe(403);
    const add = await h.request("POST", base(), { token, json: { user_id: await outsider(), membership_type: "owner" } });
    expect(add.status).toBe(403);
    // An admin may still manage ordinary members.
    const m = await member();
    expect((await h.request("PATCH", `${base()}/${m.id}`, { token, json: { status: "invited" } })).status).toBe(200);
  });

  it("a plain member may neither read nor write memberships", async () => {
    const m = await member("member-password-3");
    const token = await h.login(m.email, "member-password-3");
    expect((await h.request("GET", base(), { token })).status).toBe(403);
    expect((await h.request("POST", base(), { token, json: { user_id: await outsider() } })).status).toBe(403);
  });
});

describe("DELETE memberships", () => {
  it("removes the membership (204), then the row is 404 and re-adding creates it anew", async () => {
    const m = await member();
    const path = `${base()}/${m.id}`;
    expect((await h.admin("DELETE", path)).status).toBe(204);
    expect((await h.admin("GET", path)).status).toBe(404);
    expect((await h.admin("DELETE", path)).status).toBe(404);
    const again = await h.admin("POST", base(), { user_id: m.id });
    expect(again.status).toBe(201);
  });

  it("also removes the user's group memberships, direct bindings and end-user state in the workspace", async () => {
    const m = await member();
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: `r${++seq}`, grants: [] })).body;
    const group = (await h.admin("POST", "/uflow/v2/groups", { name: `g${seq}` })).body;
    await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: m.id });
    await h.admin("POST", `/uflow/v2/users/${m.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.id });
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${m.id}/suspend`, { reason: "abuse" });
    expect((await h.admin("DELETE", `${base()}/${m.id}`)).status).toBe(204);
    expect(await h.db.groupMember.count({ where: { userId: m.id } })).toBe(0);
    expect(await h.db.roleBinding.count({ where: { subjectId: m.id } })).toBe(0);
    expect(await h.db.endUserState.count({ where: { userId: m.id } })).toBe(0);
  });
});

describe("workspace isolation", () => {
  it("answers 403 for every endpoint when the path names another workspace", async () => {
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const p = `/uflow/v2/tenants/${other.workspaceId}/memberships`;
    const calls: [string, string, unknown?][] = [
      ["GET", p],
      ["POST", p, { user_id: h.ownerId }],
      ["GET", `${p}/${other.userId}`],
      ["PATCH", `${p}/${other.userId}`, { status: "suspended" }],
      ["DELETE", `${p}/${other.userId}`],
    ];
    for (const [method, path, json] of calls) {
      const r = await h.admin(method, path, json);
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    // Nothing changed in the other workspace.
    const theirs = await h.request("GET", `${p}/${other.userId}`, { token: other.token });
    expect(theirs.body).toMatchObject({ status: "active", membership_type: "owner" });
    expect((await h.request("GET", p, { token: other.token })).body.count).toBe(1);
  });

  it("does not show another workspace's member through our own path", async () => {
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    expect((await h.admin("GET", `${base()}/${other.userId}`)).status).toBe(404);
  });
});
