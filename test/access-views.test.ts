// The /svc/v1 read models (docs/access-explained.md): posture summary, tool exposure, scopes and
// scope impact, access assignments, end-user access summary. Their SQL counts are checked against
// the scope resolver (the one introspection uses), asked in process for every user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { readyServer, register, type ReadyServer } from "./helpers/lifecycle-flow";

let h: Harness;
const clock = new ManualClock(new Date("2026-06-01T08:00:00.000Z"));
let rs: ReadyServer;
let tools: Record<string, string>;
let users: string[] = [];
let viewer: string;
let editor: string;
let group: { id: string; name: string };
let expiring: string;
let pending: string;

beforeAll(async () => {
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  rs = await readyServer(h);
  pending = (await register(h, "https://pending.example.test")).id;
  const items = (await h.admin("GET", `/svc/resource-servers/${rs.id}/tools`)).body.items as { tool_id: string; tool_name: string }[];
  tools = Object.fromEntries(items.map((t) => [t.tool_name, t.tool_id]));
  viewer = (await h.admin("POST", "/svc/authmgr/roles", { name: "Viewer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] })).body.id;
  editor = (await h.admin("POST", "/svc/authmgr/roles", { name: "Editor", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read", "files:write"] }] })).body.id;
  for (let i = 0; i < 6; i++) users.push((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `v${i}@example.test`, username: `v${i}` })).body.id);
  group = (await h.admin("POST", "/uflow/v2/groups", { name: "eng" })).body;
  for (const u of users.slice(0, 3)) await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: u });
  const bind = async (path: string, role: string, extra: Record<string, unknown> = {}) => (await h.admin("POST", `${path}/role-bindings`, { tenant_id: h.workspaceId, role_id: role, ...extra })).body.id;
  await bind(`/uflow/v2/groups/${group.id}`, viewer); // users 0-2 read
  await bind(`/uflow/v2/users/${users[3]}`, editor, { scope_type: "resource_server", scope_id: rs.id }); // user 3 writes
  expiring = await bind(`/uflow/v2/users/${users[4]}`, editor, { expires_at: new Date(clock.now().getTime() + 3 * 86_400_000).toISOString() }); // user 4 writes, for 3 days
  await bind(`/uflow/v2/users/${users[5]}`, editor, { scope_type: "resource_server", scope_id: pending }); // user 5: another application only
  await bind(`/uflow/v2/users/${users[0]}`, editor, { expires_at: new Date(clock.now().getTime() + 1000).toISOString() });
  clock.advance(2000); // user 0's Editor binding has expired
  await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${users[2]}/suspend`, { reason: "test" }); // user 2 holds nothing
  await insertClient(h, { tenantId: h.workspaceId, allowedScopes: ["files:write"] });
});
afterAll(async () => {
  await rs?.mcp.close();
  await h?.close();
});

/** The resolver's answer: who holds `scope` on the server now. */
async function holders(scope: string, rsId = rs.id): Promise<string[]> {
  const all = [h.ownerId, ...users];
  const out: string[] = [];
  for (const u of all) if ((await h.services.rbac.resolver.userScopes(h.workspaceId, rsId, u))?.has(scope)) out.push(u);
  return out.sort();
}
const get = (path: string, token = h.adminToken) => h.request("GET", path, { token });

describe("posture summary", () => {
  it("per application: state, badges, tools, drift, clients, users with access, expiring bindings; and the workspace roll-up", async () => {
    const r = await get(`/svc/v1/workspaces/${h.workspaceId}/applications/posture-summary`);
    expect(r.status, r.text).toBe(200);
    const mine = r.body.items.find((i: { application_id: string }) => i.application_id === rs.id);
    expect(mine.state).toBe("ready");
    expect(mine.badges).toEqual([]);
    expect(mine.tools).toEqual({ total: 4, mapped: 4, public: 0, unmapped: 0, pinned_definition_changed: 0 });
    const withAccess = new Set([...(await holders("files:read")), ...(await holders("files:write"))]);
    expect(mine.users_with_access).toBe(withAccess.size);
    expect(mine.users_with_access).toBe(4); // users 0 and 1 (group eng), 3, 4; not 2 (suspended) nor 5 (other application)
    expect(mine.bindings_expiring_7d).toBe(1);
    const other = r.body.items.find((i: { application_id: string }) => i.application_id === pending);
    expect(other.badges).toEqual(["not_launched"]);
    expect(other.users_with_access).toBe(0); // user 5 is bound there, but Editor grants nothing on it
    expect(await holders("files:write", pending)).toEqual([]);
    expect(r.body.workspace).toMatchObject({ applications: 2, not_launched: 1, tools: { total: 4, mapped: 4, public: 0, unmapped: 0 }, bindings_expiring_7d: 1 });
    expect(r.body.count).toBe(2);
    const first = await get(`/svc/v1/workspaces/${h.workspaceId}/applications/posture-summary?limit=1`);
    expect(first.body.items).toHaveLength(1);
    const second = await get(`/svc/v1/workspaces/${h.workspaceId}/applications/posture-summary?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((i: { application_id: string }) => i.application_id)).not.toContain(first.body.items[0].application_id);
    expect(second.body.next_cursor).toBeNull();
  });
});

describe("tool exposure, scopes, scope impact", () => {
  it("counts users, groups and clients per tool, as the resolver decides", async () => {
    const r = await get(`/svc/v1/applications/${rs.id}/tool-exposure`);
    expect(r.status, r.text).toBe(200);
    const byName = Object.fromEntries(r.body.items.map((t: { name: string }) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(["delete_file", "list_dir", "read_file", "write_file"]);
    expect(byName.read_file.users).toBe((await holders("files:read")).length);
    expect(byName.write_file.users).toBe((await holders("files:write")).length);
    expect(byName.read_file.groups).toBe(1);
    expect(byName.write_file.groups).toBe(0);
    expect(byName.write_file.clients).toBe(1); // the pre-registered client allowed files:write
    expect(byName.read_file.roles.map((x: { role_name: string }) => x.role_name)).toEqual(["Editor", "Viewer"]);
    expect(byName.write_file.roles.map((x: { role_name: string }) => x.role_name)).toEqual(["Editor"]);
  });

  it("per scope: tools, roles and users; the impact pages through exactly the resolver's holders, with what through", async () => {
    const r = await get(`/svc/v1/applications/${rs.id}/scopes`);
    expect(r.status, r.text).toBe(200);
    const read = r.body.items.find((s: { scope_id: string }) => s.scope_id === "files:read");
    expect(read.tools.map((t: { name: string }) => t.name)).toEqual(["list_dir", "read_file"]);
    expect(read.tools_count).toBe(2);
    expect(read.users_count).toBe((await holders("files:read")).length);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/svc/v1/applications/${rs.id}/scopes/files:read/impact?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status, page.text).toBe(200);
      for (const u of page.body.users.items) {
        seen.push(u.user_id);
        expect(u.through.length).toBeGreaterThan(0);
      }
      cursor = page.body.users.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(await holders("files:read"));
    const impact = await get(`/svc/v1/applications/${rs.id}/scopes/files:read/impact`);
    const viaGroup = impact.body.users.items.find((u: { user_id: string }) => u.user_id === users[1]);
    expect(viaGroup.through).toEqual([{ binding_id: expect.any(String), via: "group:eng", role_id: viewer, role_name: "Viewer", expires_at: null }]);
    expect((await get(`/svc/v1/applications/${rs.id}/scopes/files:nope/impact`)).status).toBe(404);
  });
});

describe("access assignments and end-user access summary", () => {
  it("lists every binding reaching the application, with role, scopes, expiry and who granted it", async () => {
    const r = await get(`/svc/v1/applications/${rs.id}/access-assignments`);
    expect(r.status, r.text).toBe(200);
    // Not user 5's binding: it is scoped to the other application.
    expect(r.body.items).toHaveLength(4);
    const e = r.body.items.find((b: { binding_id: string }) => b.binding_id === expiring);
    expect(e).toMatchObject({ subject: "user", subject_id: users[4], subject_name: "v4@example.test", role_name: "Editor", scopes: ["files:read", "files:write"], expired: false, granted_by: h.ownerId, granted_by_email: "owner@example.test" });
    expect(r.body.items.filter((b: { expired: boolean }) => b.expired)).toHaveLength(1);
    const g = r.body.items.find((b: { subject: string }) => b.subject === "group");
    expect(g.subject_name).toBe("eng");
  });

  it("per end user: status, scopes and tools from the resolver and the policy, via which bindings", async () => {
    const r = await get(`/svc/v1/applications/${rs.id}/end-user-access-summary?limit=1000`);
    expect(r.status, r.text).toBe(200);
    for (const item of r.body.items) {
      const held = await h.services.rbac.resolver.userScopes(h.workspaceId, rs.id, item.user_id);
      expect(item.scopes, item.email).toEqual(held ? [...held].sort() : []);
    }
    const suspended = r.body.items.find((i: { user_id: string }) => i.user_id === users[2]);
    expect(suspended).toMatchObject({ end_user_status: "suspended", active: false, scopes: [], tools: [] });
    const writer = r.body.items.find((i: { user_id: string }) => i.user_id === users[3]);
    expect(writer.tools).toEqual(["delete_file", "list_dir", "read_file", "write_file"]);
    expect(writer.via.map((v: { role_name: string }) => v.role_name)).toEqual(["Editor"]);
    expect(writer.last_token_issued_at).toBeNull();
  });
});

describe("who may read", () => {
  it("owners and readonly_auditors read; members do not; another workspace gets 404 (application) or 403 (workspace path)", async () => {
    const ws = h.workspaceId;
    const tokens: Record<string, string> = {};
    for (const type of ["readonly_auditor", "member"]) {
      const email = `${type}@example.test`;
      const u = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email, username: type, password: "a long enough password 9" });
      await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${u.body.id}`, { membership_type: type });
      tokens[type] = await h.login(email, "a long enough password 9", ws);
    }
    const other = await h.createWorkspace("views-other@example.test");
    const paths = [
      `/svc/v1/workspaces/${ws}/applications/posture-summary`,
      `/svc/v1/applications/${rs.id}/tool-exposure`,
      `/svc/v1/applications/${rs.id}/scopes`,
      `/svc/v1/applications/${rs.id}/scopes/files:read/impact`,
      `/svc/v1/applications/${rs.id}/access-assignments`,
      `/svc/v1/applications/${rs.id}/end-user-access-summary`,
      `/svc/v1/applications/${rs.id}/effective-access?user_id=${users[0]}`,
    ];
    for (const p of paths) {
      expect((await get(p, tokens.readonly_auditor)).status, p).toBe(200);
      expect((await get(p, tokens.member)).status, p).toBe(403);
      const isolated = await get(p, other.token);
      expect(isolated.status, p).toBe(p.includes("/workspaces/") ? 403 : 404);
      if (!p.includes("/workspaces/")) expect(isolated.body).toEqual({ error: "application not found" });
    }
  });
});

describe("why did this fail", () => {
  it("the latest sign-in failures of a user and token refusals of a client, from the audit trail, in the simulation's check names", async () => {
    const ws = h.workspaceId;
    const login = await h.request("POST", "/svc/uflow/auth/login", { json: { email: "v1@example.test", password: "not the password at all", workspace_id: ws } });
    expect(login.status).toBe(401);
    const forUser = await get(`/svc/v1/workspaces/${ws}/recent-failures?user_id=${users[1]}`);
    expect(forUser.status, forUser.text).toBe(200);
    expect(forUser.body.items[0]).toMatchObject({ stage: "sign_in", action: "signin.failed", error: null, check: "credentials_valid", count: 1 });
    expect(forUser.body.items[0].reason).toMatch(/wrong password|no such account/);

    const client = await insertClient(h, { tenantId: ws, allowedScopes: ["files:read"] });
    for (let i = 0; i < 2; i++) {
      const refused = await h.request("POST", "/oauth/token", { basic: [client.clientId, "wrong-secret"], form: { grant_type: "client_credentials" } });
      expect(refused.status).toBe(401);
    }
    await h.services.audit.counters.flush();
    const forClient = await get(`/svc/v1/workspaces/${ws}/recent-failures?client_id=${encodeURIComponent(client.clientId)}`);
    expect(forClient.status, forClient.text).toBe(200);
    expect(forClient.body.items).toHaveLength(1);
    expect(forClient.body.items[0]).toMatchObject({ stage: "client_authentication", error: "invalid_client", check: "client_authenticated", count: 2, grant_type: "client_credentials" });

    expect((await get(`/svc/v1/workspaces/${ws}/recent-failures`)).status).toBe(400);
    expect((await get(`/svc/v1/workspaces/${ws}/recent-failures?user_id=${users[1]}&client_id=x`)).status).toBe(400);
    expect((await get(`/svc/v1/workspaces/${ws}/recent-failures?user_id=${users[1]}&limit=51`)).status).toBe(400);
    const other = await h.createWorkspace("failures-other@example.test");
    expect((await get(`/svc/v1/workspaces/${ws}/recent-failures?user_id=${users[1]}`, other.token)).status).toBe(403);
    expect((await get(`/svc/v1/workspaces/${other.workspaceId}/recent-failures?user_id=${users[1]}`, other.token)).body.items).toEqual([]);
  });
});
