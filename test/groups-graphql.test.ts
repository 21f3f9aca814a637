// The cockpit graph for groups, members, users and bindings: the nested list query costs the same
// number of SQL statements for 1 group as for 5 groups with 3 members and several bindings each
// (members and users ride on the parent query; bindings, their roles and effective access are
// batched), plus the group and binding mutations through the same services as REST.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { codesOf, gql } from "./graphql/client";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
let rs: string;
let role: string;
beforeAll(async () => {
  h = await startToolgate();
  rs = (await h.admin("POST", "/svc/resource-servers", { name: "Files", public_base_url: "https://files.example.test", protected_base_path: "/mcp", scopes_supported: ["files:read", "files:write"] })).body.id;
  role = (await h.admin("POST", "/svc/authmgr/roles", { name: "Reader", grants: [{ resource_server_id: rs, scope_ids: ["files:read"] }] })).body.id;
});
afterAll(async () => h?.close());

let seq = 0;
async function member(): Promise<string> {
  return (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `q${++seq}@example.test`, username: `q${seq}` })).body.id;
}

const CREATE_GROUP = `mutation($input: CreateGroupInput!) { createGroup(input: $input) { id name description memberCount } }`;
const ADD_MEMBER = `mutation($g: ID!, $u: ID!) { addGroupMember(groupId: $g, userId: $u) { created member { groupId userId user { email } } } }`;
const BIND_GROUP = `mutation($g: ID!, $input: CreateRoleBindingInput!) {
  createGroupRoleBinding(groupId: $g, input: $input) { id subjectType subjectId scopeType scopeId conditions expiresAt source role { name } }
}`;
const BIND_USER = `mutation($u: ID!, $input: CreateRoleBindingInput!) { createUserRoleBinding(userId: $u, input: $input) { id subjectType } }`;

const NESTED = `{
  groups {
    id name memberCount
    members {
      userId
      user {
        id email username
        membership { status membershipType }
        endUser { status planTier }
        groups { id name }
        roleBindings { id role { name grants { resourceServerId scopeIds } } }
        effectiveAccess { bindingId roleName subject subjectId scopeType expiresAt }
      }
    }
    roleBindings { id scopeType scopeId role { id name grants { resourceServerId scopeIds } } }
  }
}`;

async function addGroup(members: number, bindings: number): Promise<void> {
  const g = await gql<any, any>(h, CREATE_GROUP, { input: { name: `group ${++seq}` } });
  expect(g.errors).toBeUndefined();
  const groupId = g.data.createGroup.id;
  for (let i = 0; i < members; i++) {
    const u = await member();
    expect((await gql<any, any>(h, ADD_MEMBER, { g: groupId, u })).errors).toBeUndefined();
    expect((await gql<any, any>(h, BIND_USER, { u, input: { tenantId: h.workspaceId, roleId: role } })).errors).toBeUndefined();
  }
  for (let i = 0; i < bindings; i++) {
    const b = await gql<any, any>(h, BIND_GROUP, { g: groupId, input: { tenantId: h.workspaceId, roleId: role, scopeType: i % 2 ? "*" : "resource_server", scopeId: i % 2 ? null : rs } });
    expect(b.errors).toBeUndefined();
  }
}

async function countNested() {
  statements.length = 0;
  const r = await gql<any, any>(h, NESTED, {});
  expect(r.errors).toBeUndefined();
  return { count: statements.length, sql: [...statements], groups: r.data.groups as any[] };
}

describe("nested list query count", () => {
  it("does not grow with the number of groups, members and bindings", async () => {
    await addGroup(1, 1);
    const small = await countNested();
    expect(small.groups).toHaveLength(1);
    expect(small.groups[0].members).toHaveLength(1);
    expect(small.groups[0].members[0].user.effectiveAccess).toHaveLength(2);
    // The counter is live (otherwise 0 === 0 would prove nothing) and sees the bindings read.
    expect(small.sql.some((s) => /FROM\s+([`"]?\w+[`"]?\.)?[`"]?RoleBinding[`"]?\s/i.test(s))).toBe(true);

    for (let n = 0; n < 4; n++) await addGroup(3, 2);
    const large = await countNested();
    expect(large.groups).toHaveLength(5);
    expect(large.groups.flatMap((g) => g.members)).toHaveLength(13);
    expect(large.groups.flatMap((g) => g.roleBindings)).toHaveLength(9);
    for (const g of large.groups) {
      expect(g.memberCount).toBe(g.members.length);
      for (const m of g.members) {
        expect(m.user.membership).toEqual({ status: "active", membershipType: "member" });
        expect(m.user.groups.map((x: { id: string }) => x.id)).toEqual([g.id]);
        expect(m.user.roleBindings).toHaveLength(1);
        expect(m.user.roleBindings[0].role.grants).toEqual([{ resourceServerId: rs, scopeIds: ["files:read"] }]);
        // One direct binding plus every binding of the group.
        expect(m.user.effectiveAccess).toHaveLength(1 + g.roleBindings.length);
      }
    }
    expect(large.count, `statements for 5 groups:\n${large.sql.join("\n")}\n\nfor 1 group:\n${small.sql.join("\n")}`).toBe(small.count);
  });
});

describe("group mutations and queries", () => {
  it("creates a group, adds a member (idempotent), binds a role, and reads it back like REST", async () => {
    const g = await gql<any, any>(h, CREATE_GROUP, { input: { name: "Ops", description: "on call" } });
    expect(g.data.createGroup).toMatchObject({ name: "Ops", description: "on call", memberCount: 0 });
    const groupId = g.data.createGroup.id;
    const u = await member();
    const added = await gql<any, any>(h, ADD_MEMBER, { g: groupId, u });
    expect(added.data.addGroupMember).toEqual({ created: true, member: { groupId, userId: u, user: { email: `q${seq}@example.test` } } });
    expect((await gql<any, any>(h, ADD_MEMBER, { g: groupId, u })).data.addGroupMember.created).toBe(false);

    const bound = await gql<any, any>(h, BIND_GROUP, {
      g: groupId,
      input: { workspaceId: h.workspaceId, roleId: role, scopeType: "resource_server", scopeId: rs, conditions: '{"mfa":true}', expiresAt: "2030-01-01T00:00:00Z" },
    });
    expect(bound.errors).toBeUndefined();
    expect(bound.data.createGroupRoleBinding).toMatchObject({
      subjectType: "group",
      subjectId: groupId,
      scopeType: "resource_server",
      scopeId: rs,
      conditions: '{"mfa":true}',
      expiresAt: "2030-01-01T00:00:00.000Z",
      source: "api",
      role: { name: "Reader" },
    });
    const rest = await h.admin("GET", `/uflow/v2/role-bindings/${bound.data.createGroupRoleBinding.id}`);
    expect(rest.body).toMatchObject({ subject_type: "group", conditions: { mfa: true }, expires_at: "2030-01-01T00:00:00.000Z" });

    const one = await gql<any, any>(h, `query($id: ID!) { group(id: $id) { name memberCount members { userId } roleBindings { id } } }`, { id: groupId });
    expect(one.data.group).toEqual({ name: "Ops", memberCount: 1, members: [{ userId: u }], roleBindings: [{ id: bound.data.createGroupRoleBinding.id }] });
    const ea = await gql<any, any>(h, `query($u: ID!) { effectiveAccess(userId: $u) { bindingId subject subjectId } }`, { u });
    expect(ea.data.effectiveAccess).toEqual([{ bindingId: bound.data.createGroupRoleBinding.id, subject: "group", subjectId: groupId }]);

    const removed = await gql<any, any>(h, `mutation($g: ID!, $u: ID!) { removeGroupMember(groupId: $g, userId: $u) }`, { g: groupId, u });
    expect(removed.data.removeGroupMember).toBe(true);
    expect((await gql<any, any>(h, `mutation($id: ID!) { deleteRoleBinding(id: $id) }`, { id: bound.data.createGroupRoleBinding.id })).data.deleteRoleBinding).toBe(true);
    expect((await gql<any, any>(h, `mutation($id: ID!) { deleteGroup(id: $id) }`, { id: groupId })).data.deleteGroup).toBe(true);
    expect((await gql<any, any>(h, `query($id: ID!) { group(id: $id) { id } }`, { id: groupId })).data.group).toBeNull();
  });

  it("binds a client as a service account", async () => {
    const c = await h.db.client.create({
      data: { clientId: `gql-svc-${++seq}`, tenantId: h.workspaceId, clientName: "svc", kind: "m2m", registrationMode: "prereg", redirectUris: [], grantTypes: [], allowedScopes: [] },
    });
    const r = await gql<any, any>(h, `mutation($c: String!, $input: CreateRoleBindingInput!) { createClientRoleBinding(clientId: $c, input: $input) { subjectType subjectId } }`, {
      c: c.clientId,
      input: { tenantId: h.workspaceId, roleId: role },
    });
    expect(r.data.createClientRoleBinding).toEqual({ subjectType: "service_account", subjectId: c.id });
  });

  it("reports bad input with BAD_USER_INPUT naming the field, and another workspace as FORBIDDEN", async () => {
    const g = (await gql<any, any>(h, CREATE_GROUP, { input: { name: `g-${++seq}` } })).data.createGroup.id;
    const bad = await gql<any, any>(h, BIND_GROUP, { g, input: { tenantId: h.workspaceId, roleId: role, scopeType: "resource_server" } });
    expect(codesOf(bad)).toEqual(["BAD_USER_INPUT"]);
    expect(bad.errors![0]!.message).toBe("input.scopeId: is required when scope_type is resource_server");
    const conditions = await gql<any, any>(h, BIND_GROUP, { g, input: { tenantId: h.workspaceId, roleId: role, conditions: "[1]" } });
    expect(conditions.errors![0]!.message).toBe("input.conditions: must be JSON text of an object");
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const foreign = await gql<any, any>(h, BIND_GROUP, { g, input: { tenantId: other.workspaceId, roleId: role } });
    expect(codesOf(foreign)).toEqual(["FORBIDDEN"]);
    // The other workspace sees nothing of ours.
    const theirs = await gql<any, any>(h, `query($id: ID!) { group(id: $id) { id } groups { id } }`, { id: g }, { token: other.token });
    expect(theirs.data).toEqual({ group: null, groups: [] });
  });
});
