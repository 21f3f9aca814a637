// The cockpit graph for memberships, end users, roles and a user's own view: queries and mutations
// go through the same services as REST, so they give the same state and the same refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { codesOf, gql } from "./graphql/client";

let h: Harness;
let rs: string;
beforeAll(async () => {
  h = await startToolgate();
  rs = (await h.admin("POST", "/svc/resource-servers", { name: "Files", public_base_url: "https://files.example.test", protected_base_path: "/mcp", scopes_supported: ["files:read", "files:write"] })).body.id;
});
afterAll(async () => h?.close());

let seq = 0;
/** A user of the first workspace who is not (or no longer) a member of it. */
const outsider = () => h.userWithoutMembership(`out${++seq}@example.test`);
const q = <T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) => gql<T, Record<string, unknown>>(h, query, variables, { token });

describe("memberships", () => {
  it("adds (idempotent), lists with filters, updates and removes, like the REST endpoints", async () => {
    const u = await outsider();
    const add = `mutation($input: AddMembershipInput!) { addMembership(input: $input) { created membership { userId membershipType status source externalId suspendedAt user { id } } } }`;
    const first = await q(add, { input: { userId: u, membershipType: "contractor", externalId: "ext-1" } });
    expect(first.errors).toBeUndefined();
    expect(first.data.addMembership).toEqual({
      created: true,
      membership: { userId: u, membershipType: "contractor", status: "active", source: "api", externalId: "ext-1", suspendedAt: null, user: { id: u } },
    });
    const again = await q(add, { input: { userId: u, membershipType: "admin" } });
    expect(again.data.addMembership).toEqual({ ...first.data.addMembership, created: false });

    const list = await q(`{ memberships(type: contractor) { userId } all: memberships { userId } }`);
    expect(list.data.memberships).toEqual([{ userId: u }]);
    expect(list.data.all.map((m: { userId: string }) => m.userId)).toEqual(expect.arrayContaining([h.ownerId, u]));

    const update = `mutation($u: ID!, $input: UpdateMembershipInput!) { updateMembership(userId: $u, input: $input) { status externalId suspendedAt } }`;
    const suspended = await q(update, { u, input: { status: "suspended", externalId: null } });
    expect(suspended.data.updateMembership.status).toBe("suspended");
    expect(suspended.data.updateMembership.externalId).toBeNull();
    expect(suspended.data.updateMembership.suspendedAt).not.toBeNull();
    expect((await h.admin("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u}`)).body).toMatchObject({ status: "suspended", external_id: null });

    expect((await q(`mutation($u: ID!) { removeMembership(userId: $u) }`, { u })).data.removeMembership).toBe(true);
    expect((await q(`query($u: ID!) { membership(userId: $u) { id } }`, { u })).data.membership).toBeNull();
  });

  it("refuses what REST refuses, with codes: last owner (CONFLICT), bad input (BAD_USER_INPUT)", async () => {
    const demote = await q(`mutation($u: ID!) { updateMembership(userId: $u, input: { membershipType: admin }) { id } }`, { u: h.ownerId });
    expect(codesOf(demote)).toEqual(["CONFLICT"]);
    expect(demote.errors![0]!.message).toBe("the workspace must keep at least one active owner");
    const empty = await q(`mutation($u: ID!) { updateMembership(userId: $u, input: {}) { id } }`, { u: h.ownerId });
    expect(codesOf(empty)).toEqual(["BAD_USER_INPUT"]);
    const badId = await q(`mutation { addMembership(input: { userId: "nope" }) { created } }`);
    expect(codesOf(badId)).toEqual(["BAD_USER_INPUT"]);
    expect(badId.errors![0]!.message).toBe("input.userId: must be a UUID");
  });
});

describe("end users", () => {
  it("lists with filters, updates (upsert), suspends and reactivates", async () => {
    const u = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "Erin@Example.test", username: "ErinQ" })).body.id;
    const upd = await q(`mutation($u: ID!) { updateEndUser(userId: $u, input: { planTier: "pro", rateLimitOverride: "{\\"rpm\\":5}" }) { status planTier rateLimitOverride userEmail userUsername createdAt } }`, { u });
    expect(upd.errors).toBeUndefined();
    expect(upd.data.updateEndUser).toMatchObject({ status: "active", planTier: "pro", rateLimitOverride: '{"rpm":5}', userEmail: "erin@example.test", userUsername: "ErinQ" });
    expect(upd.data.updateEndUser.createdAt).not.toBeNull();

    const bad = await q(`mutation($u: ID!) { updateEndUser(userId: $u, input: { rateLimitOverride: "{no" }) { status } }`, { u });
    expect(codesOf(bad)).toEqual(["BAD_USER_INPUT"]);
    expect(bad.errors![0]!.message).toMatch(/^input\.rateLimitOverride: /);

    const s = await q(`mutation($u: ID!) { suspendEndUser(userId: $u, reason: "spam") { status suspendedReason suspendedAt } }`, { u });
    expect(s.data.suspendEndUser).toMatchObject({ status: "suspended", suspendedReason: "spam" });
    const found = await q(`{ endUsers(status: suspended, q: "ERIN") { userId } pro: endUsers(planTier: "pro") { userId } }`);
    expect(found.data).toEqual({ endUsers: [{ userId: u }], pro: [{ userId: u }] });
    const r = await q(`mutation($u: ID!) { reactivateEndUser(userId: $u) { status suspendedReason } }`, { u });
    expect(r.data.reactivateEndUser).toEqual({ status: "active", suspendedReason: null });
    expect(codesOf(await q(`mutation($u: ID!) { reactivateEndUser(userId: $u) { status } }`, { u }))).toEqual(["CONFLICT"]);
    expect((await q(`query($u: ID!) { endUser(userId: $u) { status } }`, { u: await outsider() })).data.endUser).toBeNull();
  });
});

describe("roles", () => {
  it("creates, lists, replaces and deletes roles with their grants", async () => {
    const create = await q(`mutation($input: RoleInput!) { createRole(input: $input) { id name description grants { resourceServerId scopeIds } } }`, {
      input: { name: "Writer", grants: [{ resourceServerId: rs, scopeIds: ["files:write", "files:read"] }] },
    });
    expect(create.errors).toBeUndefined();
    const role = create.data.createRole;
    expect(role).toMatchObject({ name: "Writer", description: null, grants: [{ resourceServerId: rs, scopeIds: ["files:read", "files:write"] }] });
    expect((await h.admin("GET", `/svc/authmgr/roles/${role.id}`)).body.grants).toEqual([{ resource_server_id: rs, scope_ids: ["files:read", "files:write"] }]);

    const unknownScope = await q(`mutation($input: RoleInput!) { createRole(input: $input) { id } }`, { input: { name: "X", grants: [{ resourceServerId: rs, scopeIds: ["files:nuke"] }] } });
    expect(codesOf(unknownScope)).toEqual(["BAD_USER_INPUT"]);
    expect(unknownScope.errors![0]!.message).toContain('unknown scope(s) "files:nuke"');

    const replaced = await q(`mutation($id: ID!, $input: RoleInput!) { replaceRole(id: $id, input: $input) { name description grants { scopeIds } } }`, {
      id: role.id,
      input: { name: "Writer", description: "now read-only", grants: [{ resourceServerId: rs, scopeIds: ["files:read"] }] },
    });
    expect(replaced.data.replaceRole).toEqual({ name: "Writer", description: "now read-only", grants: [{ scopeIds: ["files:read"] }] });
    expect((await q(`{ roles { id } }`)).data.roles).toContainEqual({ id: role.id });

    const binding = (await h.admin("POST", `/uflow/v2/users/${h.ownerId}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.id })).body;
    const inUse = await q(`mutation($id: ID!) { deleteRole(id: $id) }`, { id: role.id });
    expect(codesOf(inUse)).toEqual(["CONFLICT"]);
    expect(inUse.errors![0]!.extensions).toMatchObject({ binding_ids: [binding.id], resource_server_ids: [] });
    await h.admin("DELETE", `/uflow/v2/role-bindings/${binding.id}`);
    expect((await q(`mutation($id: ID!) { deleteRole(id: $id) }`, { id: role.id })).data.deleteRole).toBe(true);
    expect((await q(`query($id: ID!) { role(id: $id) { id } }`, { id: role.id })).data.role).toBeNull();
  });
});

describe("a user's own view", () => {
  it("shows this workspace's membership, end-user state, groups, bindings and effective access only", async () => {
    const email = `view${++seq}@example.test`;
    const u = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: "viewer" })).body.id;
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: `viewer-${seq}`, grants: [{ resource_server_id: rs, scope_ids: ["files:read"] }] })).body.id;
    const group = (await h.admin("POST", "/uflow/v2/groups", { name: `viewers-${seq}` })).body.id;
    await h.admin("POST", `/uflow/v2/groups/${group}/members`, { user_id: u });
    const direct = (await h.admin("POST", `/uflow/v2/users/${u}/role-bindings`, { tenant_id: h.workspaceId, role_id: role })).body.id;
    const viaGroup = (await h.admin("POST", `/uflow/v2/groups/${group}/role-bindings`, { tenant_id: h.workspaceId, role_id: role, scope_type: "*" })).body.id;

    // Another workspace, with an account of the same email and a binding there: never visible from here.
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const theirs = (await h.request("POST", `/uflow/v2/tenants/${other.workspaceId}/users`, { token: other.token, json: { email, username: "viewer" } })).body.id;
    expect(theirs).not.toBe(u);
    const theirRole = (await h.request("POST", "/svc/authmgr/roles", { token: other.token, json: { name: "t", grants: [] } })).body.id;
    await h.request("POST", `/uflow/v2/users/${theirs}/role-bindings`, { token: other.token, json: { tenant_id: other.workspaceId, role_id: theirRole } });

    const view = `query($u: ID!) { user(id: $u) {
      id email username
      membership { workspaceId membershipType status }
      endUser { status }
      groups { id }
      roleBindings { id }
      effectiveAccess { bindingId roleName subject subjectId scopeType scopeId expiresAt }
    } }`;
    const r = await q(view, { u });
    expect(r.errors).toBeUndefined();
    expect(r.data.user).toEqual({
      id: u,
      email,
      username: "viewer",
      membership: { workspaceId: h.workspaceId, membershipType: "member", status: "active" },
      endUser: { status: "active" },
      groups: [{ id: group }],
      roleBindings: [{ id: direct }],
      effectiveAccess: (await h.admin("GET", `/uflow/v2/users/${u}/effective-access`)).body.map((i: any) => ({
        bindingId: i.binding_id,
        roleName: i.role_name,
        subject: i.subject,
        subjectId: i.subject_id,
        scopeType: i.scope_type,
        scopeId: i.scope_id,
        expiresAt: i.expires_at,
      })),
    });
    expect(r.data.user.effectiveAccess.map((i: { bindingId: string }) => i.bindingId).sort()).toEqual([direct, viaGroup].sort());

    // Our user is unknown to them; their own account shows their workspace only.
    expect((await q(view, { u }, other.token)).data.user).toBeNull();
    const theirView = await q(view, { u: theirs }, other.token);
    expect(theirView.data.user).toMatchObject({ membership: { workspaceId: other.workspaceId, membershipType: "member" }, groups: [], roleBindings: [{ id: expect.any(String) }] });
    expect(theirView.data.user.roleBindings[0].id).not.toBe(direct);
    expect((await q(view, { u: theirs })).data.user).toBeNull();
    expect((await q(`query($u: ID!) { user(id: $u) { id } }`, { u: await outsider() })).data.user).toBeNull();
  });

  it("a plain member is FORBIDDEN from reading people", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "plain@example.test", username: "plain", password: "plain-password" });
    const token = await h.login("plain@example.test", "plain-password");
    for (const query of [`{ memberships { id } }`, `{ endUsers { userId } }`, `{ roles { id } }`, `{ groups { id } }`]) {
      expect(codesOf(await q(query, {}, token)), query).toEqual(["FORBIDDEN"]);
    }
  });
});
