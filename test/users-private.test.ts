// Users are private to their workspace (issue 9 item 4, docs/decisions/0017-users-private-to-a-workspace.md):
// creating a user whose email exists in another workspace neither reveals that nor attaches that
// account; a user id of another workspace is unknown here; an admin never reads the email of a user
// outside their workspace; the admin login keeps working for a person who owns several workspaces.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { claimsOf } from "./helpers/signin-flow";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

let seq = 0;
const users = (workspaceId: string) => `/uflow/v2/tenants/${workspaceId}/users`;
const login = (json: Record<string, unknown>) => h.request("POST", "/svc/uflow/auth/login", { json });

describe("creating users", () => {
  it("an email used in another workspace gives a new, separate account here: 201, nothing revealed, nothing attached", async () => {
    const other = await h.createWorkspace(`elsewhere${++seq}@example.test`);
    const email = `shared${seq}@example.test`;
    const theirs = await h.request("POST", users(other.workspaceId), { token: other.token, json: { email, username: "theirs", password: "their-password-1" } });
    expect(theirs.status).toBe(201);

    const ours = await h.admin("POST", users(h.workspaceId), { email, username: "ours", password: "our-password-1" });
    const fresh = await h.admin("POST", users(h.workspaceId), { email: `never-seen${seq}@example.test`, username: "fresh" });
    // The same answer as for an email nobody uses: 201 and an active member membership.
    expect(ours.status).toBe(201);
    expect(Object.keys(ours.body).sort()).toEqual(Object.keys(fresh.body).sort());
    expect(ours.body.membership).toMatchObject({ status: "active", membership_type: "member" });
    expect(ours.body.id).not.toBe(theirs.body.id);

    // Two accounts: each workspace sees its own only, with its own name and password.
    expect((await h.request("GET", `/uflow/v2/tenants/${other.workspaceId}/memberships/${theirs.body.id}`, { token: other.token })).body).toMatchObject({ user_username: "theirs" });
    expect((await h.admin("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships/${ours.body.id}`)).body).toMatchObject({ user_username: "ours" });
    expect((await h.admin("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships/${theirs.body.id}`)).status).toBe(404);
    expect(claimsOf(await h.login(email, "our-password-1", h.workspaceId)).tenant_id).toBe(h.workspaceId);
    expect((await login({ email, password: "their-password-1", workspace_id: h.workspaceId })).status).toBe(401);
  });

  it("the same email twice in one workspace is 409, naming this workspace only", async () => {
    const email = `twice${++seq}@example.test`;
    expect((await h.admin("POST", users(h.workspaceId), { email, username: "one" })).status).toBe(201);
    const again = await h.admin("POST", users(h.workspaceId), { email, username: "two" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "a user with this email already exists in this workspace" });
  });
});

describe("user ids of another workspace", () => {
  it("are unknown here: a membership for one answers exactly as for an id nobody has", async () => {
    const other = await h.createWorkspace(`owner-b${++seq}@example.test`);
    const theirs = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/memberships`, { user_id: other.userId });
    const nobody = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/memberships`, { user_id: randomUUID() });
    expect(theirs.status).toBe(400);
    expect(theirs.body).toEqual({ error: "user_id: no such user" });
    expect(nobody.body).toEqual(theirs.body);
    // Nothing was attached: their owner is still theirs alone, and their email never shows here.
    const ours = await h.admin("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships?limit=1000`);
    expect(ours.text).not.toContain(`owner-b${seq}@example.test`);
    expect((await h.request("GET", `/uflow/v2/tenants/${other.workspaceId}/memberships`, { token: other.token })).body.count).toBe(1);
  });

  it("cannot join our groups, nor be read through the graph", async () => {
    const other = await h.createWorkspace(`owner-c${++seq}@example.test`);
    const group = (await h.admin("POST", "/uflow/v2/groups", { name: `g${seq}` })).body.id;
    const join = await h.admin("POST", `/uflow/v2/groups/${group}/members`, { user_id: other.userId });
    expect(join.status).toBe(400);
    expect(join.body).toEqual({ error: "user_id: not a member of this workspace" });
    const r = await h.request("POST", "/graphql", { token: h.adminToken, json: { query: `query($id: ID!) { user(id: $id) { id email } }`, variables: { id: other.userId } } });
    expect(r.body).toEqual({ data: { user: null } });
  });
});

describe("admin login of a person who owns several workspaces", () => {
  it("picks the named workspace, or the oldest account whose password matches", async () => {
    const email = `multi${++seq}@example.test`;
    const first = await h.services.tenancy.bootstrap({ email, password: ADMIN_PASSWORD, workspaceName: "first" });
    const second = await h.services.tenancy.bootstrap({ email, password: ADMIN_PASSWORD, workspaceName: "second" });
    const third = await h.services.tenancy.bootstrap({ email, password: "a-different-password", workspaceName: "third" });
    expect(new Set([first.user_id, second.user_id, third.user_id]).size).toBe(3);

    expect(claimsOf(await h.login(email, ADMIN_PASSWORD)).tenant_id).toBe(first.workspace_id);
    expect(claimsOf(await h.login(email, ADMIN_PASSWORD, second.workspace_id))).toMatchObject({ tenant_id: second.workspace_id, sub: second.user_id });
    expect(claimsOf(await h.login(email, "a-different-password"))).toMatchObject({ tenant_id: third.workspace_id, sub: third.user_id });
    const wrong = await login({ email, password: "a-different-password", workspace_id: first.workspace_id });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid email or password" });
  });
});
