// The per-application access views on the graph (src/graphql/types/application-access.ts) and
// change previews (src/graphql/types/access-changes.ts): for the same workspace the graph answers
// what /svc/v1 answers (deep equality once the names are mapped), pages with the REST cursors,
// applies REST's roles and workspace scope, and serves these fields on one application per operation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { readyServer, register, type ReadyServer } from "./helpers/lifecycle-flow";
import { codesOf, gql } from "./graphql/client";

let h: Harness;
const clock = new ManualClock(new Date("2026-06-01T08:00:00.000Z"));
let rs: ReadyServer;
let other: string;
let users: string[] = [];
let viewer: string;
let editor: string;
let group: { id: string; name: string };
const tokens: Record<string, string> = {};

beforeAll(async () => {
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  rs = await readyServer(h);
  other = (await register(h, "https://other.example.test")).id;
  viewer = (await h.admin("POST", "/svc/authmgr/roles", { name: "Viewer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] })).body.id;
  editor = (await h.admin("POST", "/svc/authmgr/roles", { name: "Editor", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read", "files:write"] }] })).body.id;
  for (let i = 0; i < 5; i++) users.push((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `g${i}@example.test`, username: `g${i}` })).body.id);
  group = (await h.admin("POST", "/uflow/v2/groups", { name: "eng" })).body;
  for (const u of users.slice(0, 3)) await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: u });
  const bind = async (path: string, role: string, extra: Record<string, unknown> = {}) => {
    const r = await h.admin("POST", `${path}/role-bindings`, { tenant_id: h.workspaceId, role_id: role, ...extra });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };
  await bind(`/uflow/v2/groups/${group.id}`, viewer);
  await bind(`/uflow/v2/users/${users[3]}`, editor, { scope_type: "resource_server", scope_id: rs.id });
  await bind(`/uflow/v2/users/${users[3]}`, viewer, { scope_type: "resource_server", scope_id: other }); // reaches the other application only
  await bind(`/uflow/v2/users/${users[4]}`, editor, { expires_at: new Date(clock.now().getTime() + 3 * 86_400_000).toISOString() });
  await bind(`/uflow/v2/users/${users[0]}`, editor, { expires_at: new Date(clock.now().getTime() + 1000).toISOString() });
  clock.advance(2000); // user 0's Editor binding has expired
  await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${users[2]}/suspend`, { reason: "test" });
  await insertClient(h, { tenantId: h.workspaceId, allowedScopes: ["files:write"] });
  for (const type of ["readonly_auditor", "member"]) {
    const email = `graph-${type}@example.test`;
    const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: `graph-${type}`, password: "a long enough password 9" });
    await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u.body.id}`, { membership_type: type });
    tokens[type] = await h.login(email, "a long enough password 9", h.workspaceId);
  }
});
afterAll(async () => {
  await rs?.mcp.close();
  await h?.close();
});

const get = async (path: string) => {
  const r = await h.request("GET", path, { token: h.adminToken });
  expect(r.status, r.text).toBe(200);
  return r.body;
};

/** The graph's answer in REST's names: camelCase keys to snake_case, without the graph-only `cursor`. */
function wire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(wire);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "cursor")
      .map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), wire(v)]),
  );
}

const ROLE = `{ roleId roleName }`;
const FIELDS = {
  toolExposure: `toolExposure { toolId name scopes public mapped definitionChanged users groups clients roles ${ROLE} cursor }`,
  scopeAccess: `scopeAccess { scopeId name description tools { toolId name } toolsCount roles ${ROLE} usersCount cursor }`,
  scopeImpact: `scopeImpact(scopeId: "files:read") { scopeId name description tools { toolId name } toolsCount roles ${ROLE} usersCount holders { userId email through { bindingId via roleId roleName expiresAt } cursor } }`,
  accessAssignments: `accessAssignments { bindingId subject subjectId subjectName clientId roleId roleName scopes scopeType scopeId expiresAt expired source grantedBy grantedByEmail grantedAt cursor }`,
  endUserAccess: `endUserAccess { userId email membershipStatus endUserStatus active scopes tools via { bindingId subject roleId roleName expiresAt } lastTokenIssuedAt cursor }`,
  effectiveAccess: `effectiveAccess(userId: $user) { userId userEmail identityProvider lastSignInAt active membershipStatus endUserStatus scopes tools { toolId name public scopes } paths { via bindingId roleId roleName scopeType scopeId expiresAt scopes { scope tools } } expiredBindings { bindingId roleName via expiresAt } }`,
};
const ALL = `query($id: ID!, $user: ID!) { resourceServer(id: $id) { ${Object.values(FIELDS).join(" ")} } }`;

async function graph(query: string, variables: Record<string, unknown>, token = h.adminToken) {
  const r = await gql<any, any>(h, query, variables, { token });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

describe("the per-application views on the graph", () => {
  it("answer exactly what /svc/v1 answers", async () => {
    const g = (await graph(ALL, { id: rs.id, user: users[0] })).resourceServer;
    const app = `/svc/v1/applications/${rs.id}`;
    expect(g.toolExposure).toHaveLength(4);
    expect(wire(g.toolExposure)).toEqual((await get(`${app}/tool-exposure`)).items);
    expect(wire(g.scopeAccess)).toEqual((await get(`${app}/scopes`)).items);

    const impact = await get(`${app}/scopes/files:read/impact`);
    const { holders, ...rest } = wire(g.scopeImpact) as Record<string, unknown>;
    expect(rest).toEqual(Object.fromEntries(Object.entries(impact).filter(([k]) => k !== "users" && k !== "application_id")));
    expect(holders).toEqual(impact.users.items);
    expect(impact.users.items.length).toBeGreaterThan(1);

    const assignments = (await get(`${app}/access-assignments`)).items;
    expect(assignments.length).toBe(4);
    // REST names client_id only on service accounts; the graph's field is null for the others.
    expect(wire(g.accessAssignments)).toEqual(assignments.map((a: any) => ("client_id" in a ? a : { ...a, client_id: null })));

    const endUsers = (await get(`${app}/end-user-access-summary`)).items;
    expect(endUsers.length).toBeGreaterThan(5);
    expect(wire(g.endUserAccess)).toEqual(endUsers);

    const { application_id, application_state, ...effective } = await get(`${app}/effective-access?user_id=${users[0]}`);
    expect(application_id).toBe(rs.id);
    expect(effective.paths.length).toBeGreaterThan(0);
    expect(effective.expired_bindings.length).toBe(1);
    expect(wire(g.effectiveAccess)).toEqual(effective);
  });

  it("page with first/after, and the graph's cursors are the REST cursors", async () => {
    const lists = [
      { field: "toolExposure", path: "tool-exposure", key: "toolId" },
      { field: "scopeAccess", path: "scopes", key: "scopeId" },
      { field: "accessAssignments", path: "access-assignments", key: "bindingId" },
      { field: "endUserAccess", path: "end-user-access-summary", key: "userId" },
    ] as const;
    for (const { field, path, key } of lists) {
      const whole = (await graph(`query($id: ID!) { resourceServer(id: $id) { ${field}(first: 1000) { ${key} } } }`, { id: rs.id })).resourceServer[field].map((i: any) => i[key]);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: any[] = (await graph(`query($id: ID!, $after: String) { resourceServer(id: $id) { ${field}(first: 1, after: $after) { ${key} cursor } } }`, { id: rs.id, after })).resourceServer[field];
        // The same page from REST: the same rows, and its next_cursor is the last item's cursor.
        const rest = await get(`/svc/v1/applications/${rs.id}/${path}?limit=1${after ? `&cursor=${encodeURIComponent(after)}` : ""}`);
        expect(page.length, field).toBe(rest.items.length);
        if (rest.next_cursor !== null) expect(page[page.length - 1].cursor, field).toBe(rest.next_cursor);
        seen.push(...page.map((i) => i[key]));
        if (page.length < 1) break;
        after = page[0].cursor;
      }
      expect(seen, field).toEqual(whole);
      expect(whole.length, field).toBeGreaterThan(1);
    }
    const holders: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = (await graph(`query($id: ID!, $after: String) { resourceServer(id: $id) { scopeImpact(scopeId: "files:read", first: 1, after: $after) { holders { userId cursor } } } }`, { id: rs.id, after })).resourceServer.scopeImpact.holders;
      if (page.length === 0) break;
      holders.push(page[0].userId);
      after = page[0].cursor;
    }
    expect(holders).toEqual((await get(`/svc/v1/applications/${rs.id}/scopes/files:read/impact`)).users.items.map((u: any) => u.user_id));
    const bad = await gql<any, any>(h, `query($id: ID!) { resourceServer(id: $id) { toolExposure(after: "nope") { toolId } } }`, { id: rs.id });
    expect(codesOf(bad)).toEqual(["BAD_USER_INPUT"]);
    expect(bad.errors![0]!.message).toMatch(/^after: /);
  });

  it("an unknown scope or a user of no workspace of the caller's is null", async () => {
    const r = await graph(`query($id: ID!, $u: ID!) { resourceServer(id: $id) { scopeImpact(scopeId: "files:nope") { scopeId } effectiveAccess(userId: $u) { userId } } }`, { id: rs.id, u: crypto.randomUUID() });
    expect(r.resourceServer).toEqual({ scopeImpact: null, effectiveAccess: null });
  });

  it("effective access is batched over a list of applications, each answer REST's", async () => {
    const q = `query($user: ID!) { resourceServers { id ${FIELDS.effectiveAccess} } }`;
    for (const user of [users[0], users[3], users[2], h.ownerId]) {
      const listed = (await graph(q, { user })).resourceServers;
      expect(listed).toHaveLength(2);
      for (const s of listed) {
        const { application_id, application_state, ...rest } = await get(`/svc/v1/applications/${s.id}/effective-access?user_id=${user}`);
        expect(application_id).toBe(s.id);
        expect(wire(s.effectiveAccess), `${user} on ${s.id}`).toEqual(rest);
      }
      if (user === users[3]) {
        const onOther = listed.find((s: any) => s.id === other).effectiveAccess;
        const onRs = listed.find((s: any) => s.id === rs.id).effectiveAccess;
        expect(onOther.paths.map((p: any) => p.roleName)).toEqual(["Viewer"]);
        expect(onRs.paths.map((p: any) => p.roleName)).toEqual(["Editor"]);
      }
    }
    const unknown = (await graph(q, { user: crypto.randomUUID() })).resourceServers;
    expect(unknown.map((s: any) => s.effectiveAccess)).toEqual([null, null]);
  });

  it("are offered on one application per operation", async () => {
    const r = await gql<any, any>(h, `{ resourceServers { id toolExposure { toolId } } }`);
    expect(r.data?.resourceServers ?? null).toBeNull();
    expect(codesOf(r)[0]).toBe("BAD_USER_INPUT");
    expect(r.errors![0]!.message).toMatch(/toolExposure is offered on one application per operation \(2 asked\)/);
    // The role is checked first: a member is refused as such, not for asking several.
    expect(codesOf(await gql<any, any>(h, `{ resourceServers { id toolExposure { toolId } } }`, undefined, { token: tokens.member }))[0]).toBe("FORBIDDEN");
    // One application, several scopes (aliases): each scope is its own field call on one application.
    const two = await graph(`query($id: ID!) { resourceServer(id: $id) { r: scopeImpact(scopeId: "files:read") { scopeId } w: scopeImpact(scopeId: "files:write") { scopeId } } }`, { id: rs.id });
    expect(two.resourceServer).toEqual({ r: { scopeId: "files:read" }, w: { scopeId: "files:write" } });
    // The posture is batched: it is served on the whole list.
    const posture = await graph(`{ resourceServers { id posture { usersWithAccess } } }`, {});
    expect(posture.resourceServers.map((s: any) => s.id).sort()).toEqual([rs.id, other].sort());
  });
});

describe("access change previews on the graph", () => {
  const changes = [
    { rest: { kind: "role_grants", role_id: "", add: [], remove: ["files:write"] }, graph: { kind: "role_grants", roleId: "", remove: ["files:write"] } },
    { rest: { kind: "binding_add", subject_type: "user", subject_id: "", role_id: "", scope_type: "resource_server", scope_id: "" }, graph: { kind: "binding_add", subjectType: "user", subjectId: "", roleId: "", scopeType: "resource_server", scopeId: "" } },
    { rest: { kind: "tool_public", tool_name: "delete_file" }, graph: { kind: "tool_public", toolName: "delete_file" } },
  ];
  const PREVIEW = `query($id: ID!, $change: AccessChangeInput!) { accessChangePreview(applicationId: $id, change: $change) { applicationId change written usersEvaluated summary { usersGaining usersLosing scopesGained scopesLost toolsGained toolsLost } users { userId gains { scopes tools } losses { scopes tools } } truncated warnings { code message } } }`;

  it("answer what POST .../access-change-previews answers, and write nothing", async () => {
    for (const c of changes) {
      const fill = (o: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v !== "" ? v : /role/i.test(k) ? editor : /subject/i.test(k) ? users[1] : rs.id]));
      const rest = await h.request("POST", `/svc/v1/applications/${rs.id}/access-change-previews`, { token: h.adminToken, json: { change: fill(c.rest) } });
      expect(rest.status, rest.text).toBe(200);
      const before = await get(`/svc/v1/applications/${rs.id}/access-assignments`);
      const g = (await graph(PREVIEW, { id: rs.id, change: fill(c.graph) })).accessChangePreview;
      expect({ ...(wire(g) as object), change: JSON.parse(g.change) }).toEqual(rest.body);
      expect(g.written).toBe(false);
      expect(await get(`/svc/v1/applications/${rs.id}/access-assignments`)).toEqual(before);
    }
    const losing = (await graph(PREVIEW, { id: rs.id, change: { kind: "role_grants", roleId: editor, remove: ["files:write"] } })).accessChangePreview;
    expect(losing.summary.usersLosing).toBe(2); // users 3 and 4
  });

  it("parse the change with the REST schema: a field of another kind is BAD_USER_INPUT naming it", async () => {
    const r = await gql<any, any>(h, PREVIEW, { id: rs.id, change: { kind: "tool_public", toolName: "delete_file", roleId: editor } });
    expect(codesOf(r)).toEqual(["BAD_USER_INPUT"]);
    expect(r.errors![0]!.message).toMatch(/^change: unknown field\(s\) roleId/);
    const missing = await gql<any, any>(h, PREVIEW, { id: rs.id, change: { kind: "binding_remove" } });
    expect(codesOf(missing)).toEqual(["BAD_USER_INPUT"]);
    expect(missing.errors![0]!.message).toMatch(/^change\.bindingId: /);
  });
});

describe("who may read, and whose applications", () => {
  it("a readonly_auditor reads the views (not previews, as REST); a member reads none; another workspace's application is not found", async () => {
    const auditor = await gql<any, any>(h, ALL, { id: rs.id, user: users[0] }, { token: tokens.readonly_auditor });
    expect(auditor.errors, JSON.stringify(auditor.errors)).toBeUndefined();
    expect(auditor.data.resourceServer.toolExposure).toHaveLength(4);
    const preview = `query($id: ID!) { accessChangePreview(applicationId: $id, change: { kind: tool_public, toolName: "delete_file" }) { written } }`;
    expect(codesOf(await gql<any, any>(h, preview, { id: rs.id }, { token: tokens.readonly_auditor }))).toEqual(["FORBIDDEN"]);
    expect((await h.request("POST", `/svc/v1/applications/${rs.id}/access-change-previews`, { token: tokens.readonly_auditor, json: { change: { kind: "tool_public", tool_name: "delete_file" } } })).status).toBe(403);

    for (const [name, field] of Object.entries(FIELDS)) {
      const vars = field.includes("$user") ? ", $user: ID!" : "";
      const member = await gql<any, any>(h, `query($id: ID!${vars}) { resourceServer(id: $id) { ${field} } }`, { id: rs.id, user: users[0] }, { token: tokens.member });
      const codes = codesOf(member);
      expect(codes.length, name).toBeGreaterThan(0);
      expect(new Set(codes), name).toEqual(new Set(["FORBIDDEN"]));
    }
    expect(codesOf(await gql<any, any>(h, preview, { id: rs.id }, { token: tokens.member }))).toEqual(["FORBIDDEN"]);

    const stranger = await h.createWorkspace("graph-views-other@example.test");
    const isolated = await gql<any, any>(h, ALL, { id: rs.id, user: users[0] }, { token: stranger.token });
    expect(isolated.errors).toBeUndefined();
    expect(isolated.data.resourceServer).toBeNull();
    const foreignPreview = await gql<any, any>(h, preview, { id: rs.id }, { token: stranger.token });
    expect(codesOf(foreignPreview)).toEqual(["NOT_FOUND"]);
    const foreignRest = await h.request("POST", `/svc/v1/applications/${rs.id}/access-change-previews`, { token: stranger.token, json: { change: { kind: "tool_public", tool_name: "delete_file" } } });
    expect(foreignRest.status).toBe(404);
    expect(foreignPreview.errors![0]!.message).toBe(foreignRest.body.error);
  });
});
