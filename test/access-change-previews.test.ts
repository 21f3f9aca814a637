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
import { signInWithCode, tokenRequest } from "./helpers/signin-flow";

let h: Harness;
let mcp: McpTestServer;
let app: { id: string; secret: string; body: any };
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

/** What one subject may call: scopes, and tools by the SDK's rule over the served policy; null scopes: nothing. */
async function toolsOf(held: Iterable<string> | null) {
  const policy = (await h.request("GET", `/svc/resource-servers/${app.id}/sdk-policy`, { basic: [app.id, app.secret] })).body;
  const hashes = new Map(Object.entries((policy.definition_hashes ?? {}) as Record<string, string>));
  const tools = new Set<string>();
  if (held !== null) for (const tool of Object.keys(policy.scope_matrix)) if (decideTool(policy, hashes, tool, [...held]).allowed) tools.add(tool);
  return { scopes: new Set(held ?? []), tools };
}

/** A service account's access as introspection decides for the client's own tokens (the resolver, client subject). */
async function clientAccess(clientId: string): Promise<Access> {
  const row = await h.db.client.findUniqueOrThrow({ where: { clientId } });
  const held =
    row.status === "approved"
      ? await h.services.rbac.resolver.scopesFor({ tenantId: h.workspaceId, resourceServerId: app.id, subject: { type: "client", clientId, internalId: row.id, allowedScopes: row.allowedScopes as string[] } })
      : null;
  return new Map([[clientId, await toolsOf(held)]]);
}

/** What each user's token of one client is worth at the application: POST /oauth/introspect, then the SDK's rule. */
async function throughClient(tokens: Map<string, string>): Promise<Access> {
  const out: Access = new Map();
  for (const [userId, token] of tokens) {
    const r = await h.request("POST", "/oauth/introspect", { basic: [app.id, app.secret], form: { token } });
    expect(r.status).toBe(200);
    out.set(userId, await toolsOf(r.body.active ? String(r.body.scope ?? "").split(" ").filter(Boolean) : null));
  }
  return out;
}
/** What a client's own tokens are worth at the application: a fresh client_credentials token (all it may ask for), introspected; null when refused. */
async function clientTokens(client: { clientId: string; clientSecret: string }): Promise<Access> {
  const t = await tokenRequest(h.url, client, { grant_type: "client_credentials", resource: app.body.resource_url });
  if (t.status !== 200) return new Map([[client.clientId, await toolsOf(null)]]);
  const out = await throughClient(new Map([[client.clientId, t.body.access_token as string]]));
  return out;
}
const asClients = (d: any[]) => d.map(({ user_id, ...rest }) => ({ client_id: user_id, ...rest }));

describe("default role, connection revoke and service accounts", () => {
  const REDIRECT = "http://127.0.0.1/callback";
  let viewer: string;
  let newcomer: string;
  let webApp: { client_id: string; client_secret: string };
  const signIn = (email: string, client: { clientId: string; clientSecret?: string }) =>
    signInWithCode({ publicUrl: h.config.publicUrl, serverUrl: h.url, ...client, redirectUri: REDIRECT, resource: app.body.resource_url, scope: "", email, password: PASSWORD });

  beforeAll(async () => {
    viewer = (await h.admin("POST", "/svc/authmgr/roles", { name: "first-viewer", grants: [{ resource_server_id: app.id, scope_ids: ["files:read"] }] })).body.id;
    newcomer = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "p5@example.test", username: "p5", password: PASSWORD })).body.id;
    const c = await h.admin("POST", `/svc/resource-servers/${app.id}/clients`, { client_name: "web", kind: "human_app", redirect_uris: [REDIRECT], allowed_scopes: ["files:read"] });
    expect(c.status, c.text).toBe(201);
    webApp = c.body;
  });

  it("default_role: nobody's access changes now; a member's first sign-in then gets exactly the predicted grant", async () => {
    const members = await h.db.membership.count({ where: { tenantId: h.workspaceId, status: "active" } });
    const p = await predictsReality({ kind: "default_role", enabled: true, default_role_id: viewer }, () =>
      ok(h.admin("PUT", `/svc/resource-servers/${app.id}/access-policy`, { enabled: true, default_role_id: viewer })),
    );
    expect(p.users).toEqual([]);
    expect(p.first_sign_in.before).toEqual({ role_id: null, scopes: [], tools: [] });
    expect(p.first_sign_in.after).toEqual({ role_id: viewer, scopes: ["files:read"], tools: ["list_dir", "read_file", "write_file"] });
    expect(p.first_sign_in.members_not_signed_in).toBe(members); // nobody has signed in to the application yet
    expect(p.first_sign_in.users_holding_first_time_grant).toBe(0);
    expect(p.warnings.map((w: any) => w.code)).toContain("scope_reaches_everyone");
    // The first sign-in, for real: the newcomer holds what the preview said a first sign-in grants.
    expect(await h.services.rbac.resolver.userScopes(h.workspaceId, app.id, newcomer)).toEqual(new Set());
    await signIn("p5@example.test", { clientId: webApp.client_id, clientSecret: webApp.client_secret });
    const got = await toolsOf(await h.services.rbac.resolver.userScopes(h.workspaceId, app.id, newcomer));
    expect(sorted(got.scopes)).toEqual(p.first_sign_in.after.scopes);
    const open = await toolsOf([]);
    expect(sorted([...got.tools].filter((t) => !open.tools.has(t)))).toEqual(p.first_sign_in.after.tools);
  });

  it("default_role cleared: those who got the role keep it; no warning", async () => {
    const p = await predictsReality({ kind: "default_role", enabled: false, default_role_id: null }, () =>
      ok(h.admin("PUT", `/svc/resource-servers/${app.id}/access-policy`, { enabled: false, default_role_id: null })),
    );
    expect(p.users).toEqual([]);
    expect(p.first_sign_in.before.role_id).toBe(viewer);
    expect(p.first_sign_in.after).toEqual({ role_id: null, scopes: [], tools: [] });
    expect(p.first_sign_in.users_holding_first_time_grant).toBe(1);
    expect(p.warnings.map((w: any) => w.code)).not.toContain("scope_reaches_everyone");
    expect(await h.services.rbac.resolver.userScopes(h.workspaceId, app.id, newcomer)).toEqual(new Set(["files:read"]));
  });

  it("connection_revoke (dcr): the users known to use the client lose what they could call through it", async () => {
    const reg = await h.request("POST", "/oauth/register", {
      json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "agent", application_type: "native" },
    });
    expect(reg.status, reg.text).toBe(201);
    const dcr = reg.body.client_id as string;
    expect((await h.admin("POST", `/uflow/v2/users/${u[4]}/role-bindings`, { tenant_id: h.workspaceId, role_id: viewer })).status).toBe(201);
    const tokens = new Map<string, string>();
    for (const [id, email] of [[u[4], "p4@example.test"], [newcomer, "p5@example.test"]] as const) tokens.set(id, (await signIn(email, { clientId: dcr })).access_token);
    // The users are known from the data: both have a live refresh token of the client for the application.
    expect(await h.db.refreshToken.count({ where: { clientId: dcr, resource: app.body.resource_url, revokedAt: null } })).toBe(2);
    const before = await throughClient(tokens);
    const resolverBefore = await actual();
    const events = await h.db.auditEvent.count();
    const p = await preview({ kind: "connection_revoke", client_id: dcr });
    expect(p.status, p.text).toBe(200);
    expect(await h.db.auditEvent.count()).toBe(events);
    expect(diff(before, await throughClient(tokens))).toEqual([]); // nothing written: the tokens still work
    expect(p.body.client).toEqual({ client_id: dcr, client_name: "agent", registration_mode: "dcr", revokes: "connection", works_now: true, users_known: 2 });
    await ok(h.admin("POST", `/svc/resource-servers/${app.id}/clients/${encodeURIComponent(dcr)}/revoke`));
    const real = diff(before, await throughClient(tokens));
    expect(real.length).toBe(2);
    expect(p.body.users).toEqual(real);
    expect(p.body.summary.users_losing).toBe(2);
    expect(p.body.summary.tools_lost).toContain("ping"); // public tools too: the token is inactive
    expect(diff(resolverBefore, await actual())).toEqual([]); // what the users hold is untouched
    // Revoked already: nothing left to lose.
    const again = await preview({ kind: "connection_revoke", client_id: dcr });
    expect(again.body.client.works_now).toBe(false);
    expect(again.body.users).toEqual([]);
  });

  it("service accounts: an agent's bindings decide its tokens; binding_add and binding_remove predict them", async () => {
    const made = await h.admin("POST", "/svc/sdkmgr/agents", { name: "sync bot", kind: "autonomous" });
    expect(made.status, made.text).toBe(201);
    const agent = { clientId: made.body.client_id as string, clientSecret: made.body.client_secret as string };
    const before = await clientTokens(agent);
    const add = await preview({ kind: "binding_add", subject_type: "service_account", subject_id: agent.clientId, role_id: viewer, scope_type: "resource_server", scope_id: app.id });
    expect(add.status, add.text).toBe(200);
    expect(diff(before, await clientTokens(agent))).toEqual([]); // nothing written
    const bound = await h.admin("POST", `/svc/clientms/clients/${agent.clientId}/role-bindings`, { tenant_id: h.workspaceId, role_id: viewer, scope_type: "resource_server", scope_id: app.id });
    expect(bound.status, bound.text).toBe(201);
    const after = await clientTokens(agent);
    expect(add.body.service_accounts).toEqual(asClients(diff(before, after)));
    expect(add.body.service_accounts[0].gains).toEqual({ scopes: ["files:read"], tools: ["list_dir", "read_file", "write_file"] });
    expect(add.body.users).toEqual([]);

    const remove = await preview({ kind: "binding_remove", binding_id: bound.body.id });
    expect(remove.status, remove.text).toBe(200);
    await ok(h.admin("DELETE", `/uflow/v2/role-bindings/${bound.body.id}`));
    const real = asClients(diff(after, await clientTokens(agent)));
    expect(real.length).toBe(1);
    expect(remove.body.service_accounts).toEqual(real);
  });

  it("service accounts: a client registered for the application gets its allowed scopes whatever its bindings; its revoke", async () => {
    const c = await h.admin("POST", `/svc/resource-servers/${app.id}/clients`, { client_name: "nightly", kind: "m2m", redirect_uris: [], allowed_scopes: ["files:read"] });
    expect(c.status, c.text).toBe(201);
    const m2m = { clientId: c.body.client_id as string, clientSecret: c.body.client_secret as string };
    const before = await clientTokens(m2m);
    expect(sorted(before.get(m2m.clientId)!.scopes)).toEqual(["files:read"]);
    // A binding to a role granting files:write (none left: re-create it) adds nothing its tokens can carry.
    await ok(h.admin("POST", `/svc/resource-servers/${app.id}/scopes`, { id: "files:write", name: "Write" }));
    const editor = (await h.admin("POST", "/svc/authmgr/roles", { name: "sa-editor", grants: [{ resource_server_id: app.id, scope_ids: ["files:write"] }] })).body.id;
    const add = await preview({ kind: "binding_add", subject_type: "service_account", subject_id: m2m.clientId, role_id: editor });
    expect(add.status, add.text).toBe(200);
    await ok(h.admin("POST", `/svc/clientms/clients/${m2m.clientId}/role-bindings`, { tenant_id: h.workspaceId, role_id: editor }));
    expect(add.body.service_accounts).toEqual(asClients(diff(before, await clientTokens(m2m))));
    expect(add.body.service_accounts).toEqual([]);

    // A tool change reaches the application's clients too (the human_app client gets no tokens of its own: not listed).
    const m2mBefore = await clientTokens(m2m);
    const remap = await predictsReality({ kind: "tool_mapping", tool_name: "write_file", scope_ids: ["files:write"] }, () =>
      ok(h.admin("PUT", `/svc/resource-servers/${app.id}/tool-scope-map`, { mappings: [{ tool_name: "write_file", scope_ids: ["files:write"] }] })),
    );
    const m2mReal = asClients(diff(m2mBefore, await clientTokens(m2m)));
    expect(m2mReal).toEqual([{ client_id: m2m.clientId, gains: { scopes: [], tools: [] }, losses: { scopes: [], tools: ["write_file"] } }]);
    expect(remap.service_accounts).toEqual(m2mReal);

    const beforeRevoke = await clientTokens(m2m);
    const revoke = await preview({ kind: "connection_revoke", client_id: m2m.clientId });
    expect(revoke.status, revoke.text).toBe(200);
    expect(revoke.body.client).toMatchObject({ client_id: m2m.clientId, revokes: "client", works_now: true, users_known: 0 });
    await ok(h.admin("POST", `/svc/resource-servers/${app.id}/clients/${m2m.clientId}/revoke`));
    const real = asClients(diff(beforeRevoke, await clientTokens(m2m)));
    expect(revoke.body.service_accounts).toEqual(real);
    expect(real[0].losses.tools).toContain("ping"); // its tokens are dead: public tools too
  });

  it("tenant isolation and validation of the new kinds", async () => {
    const other = await h.createWorkspace("pv-iso@example.test");
    const theirRole = (await h.request("POST", "/svc/authmgr/roles", { token: other.token, json: { name: "theirs", grants: [] } })).body.id;
    const theirApp = await register(h, mcp.url, { token: other.token });
    const theirClient = await h.request("POST", `/svc/resource-servers/${theirApp.id}/clients`, { token: other.token, json: { client_name: "theirs", kind: "m2m", redirect_uris: [], allowed_scopes: [] } });
    expect(theirClient.status, theirClient.text).toBe(201);
    // Another workspace's role and client are as unknown here as made-up ids.
    expect((await preview({ kind: "connection_revoke", client_id: theirClient.body.client_id })).status).toBe(404);
    expect((await preview({ kind: "binding_add", subject_type: "service_account", subject_id: theirClient.body.client_id, role_id: viewer })).status).toBe(404);
    expect((await preview({ kind: "default_role", enabled: true, default_role_id: theirRole })).status).toBe(404);
    expect((await preview({ kind: "default_role", enabled: true, default_role_id: null })).status).toBe(400);
    expect((await preview({ kind: "default_role", enabled: true, nope: 1 })).status).toBe(400);
    expect((await preview({ kind: "connection_revoke", client_id: "no-such-client" })).status).toBe(404);
    expect((await preview({ kind: "connection_revoke", client_id: webApp.client_id }, other.token)).status).toBe(404);
    expect((await preview({ kind: "binding_add", subject_type: "service_account", subject_id: webApp.client_id, role_id: viewer }, other.token)).status).toBe(404);
    expect((await preview({ kind: "binding_add", subject_type: "user", subject_id: "not-a-uuid", role_id: viewer })).status).toBe(400);
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
