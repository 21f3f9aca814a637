// POST /svc/v1/applications/:id/access-simulations and GET .../effective-access (docs/access-explained.md).
// The property test at the end is the issue's "How it is checked": over random workspaces, the
// simulation's verdict equals what introspection (POST /oauth/introspect, over HTTP) plus the SDK's
// tools/call rule (src/sdk/tool-policy.ts decideTool, over the sdk-policy document fetched over
// HTTP) decide for a user token carrying every scope of the server. A seeded generator (no
// fast-check dependency): a failure prints the seed and the case.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { decideTool } from "../src/sdk/tool-policy";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { readyServer, register, type ReadyServer } from "./helpers/lifecycle-flow";

let h: Harness;
const clock = new ManualClock(new Date("2026-06-01T08:00:00.000Z"));
let rs: ReadyServer;
let toolIds: Record<string, string>;
let viewer: string;
let editor: string;
beforeAll(async () => {
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  rs = await readyServer(h);
  toolIds = await toolsOf(rs.id);
  viewer = (await h.admin("POST", "/svc/authmgr/roles", { name: "Viewer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] })).body.id;
  editor = (await h.admin("POST", "/svc/authmgr/roles", { name: "Editor", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read", "files:write"] }] })).body.id;
});
afterAll(async () => {
  await rs?.mcp.close();
  await h?.close();
});

async function toolsOf(rsId: string): Promise<Record<string, string>> {
  const items = (await h.admin("GET", `/svc/resource-servers/${rsId}/tools`)).body.items as { tool_id: string; tool_name: string }[];
  return Object.fromEntries(items.map((t) => [t.tool_name, t.tool_id]));
}
let seq = 0;
async function user(): Promise<{ id: string; email: string }> {
  const email = `sim${++seq}@example.test`;
  const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: `sim${seq}` });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, email };
}
async function bind(subjectPath: string, roleId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await h.admin("POST", `${subjectPath}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
const simulate = (body: Record<string, unknown>, token = h.adminToken, app = rs.id) => h.request("POST", `/svc/v1/applications/${app}/access-simulations`, { token, json: body });
const stateOf = (trace: { check: string; state: string }[], check: string) => trace.find((s) => s.check === check)?.state;

describe("access simulation", () => {
  it("the spec's example: a Viewer calling write_file is denied by missing_role_scope, with the trace, the bindings and the narrowest fix", async () => {
    const u = await user();
    const binding = await bind(`/uflow/v2/users/${u.id}`, viewer);
    const r = await simulate({ user_id: u.id, tool_id: toolIds.write_file });
    expect(r.status, r.text).toBe(200);
    expect(r.body.verdict).toBe("denied");
    expect(r.body.failed_condition).toBe("missing_role_scope");
    expect(r.body.required_scopes).toEqual(["files:write"]);
    expect(r.body.effective_scopes).toEqual(["files:read"]);
    const trace = r.body.decision_trace as { check: string; state: string }[];
    for (const check of ["user_active", "application_launched", "tool_mapped"]) expect(stateOf(trace, check)).toBe("ok");
    expect(stateOf(trace, "role_grants_scope")).toBe("blocked");
    expect(stateOf(trace, "client_connection_approved")).toBe("skipped");
    expect(trace.map((s) => s.check)).toEqual([
      "membership_active", "end_user_active", "user_active", "application_launched", "tool_mapped", "tool_definition_current",
      "client_connection_approved", "binding_not_expired", "role_grants_scope", "client_allowed_scope",
    ]);
    expect(stateOf(trace, "client_allowed_scope")).toBe("not_evaluated");
    // The narrowest change: this user alone, on this application only, bound to Editor (the role granting files:write).
    expect(r.body.fix).toMatchObject({ kind: "add_binding", subject: "user", subject_id: u.id, role_id: editor, role_name: "Editor", scope_type: "resource_server", scope_id: rs.id });
    // Priced by the access change preview: this user alone gains files:write and the tools needing it.
    expect(r.body.fix.impact).toEqual({
      change: { kind: "binding_add", subject_type: "user", subject_id: u.id, role_id: editor, scope_type: "resource_server", scope_id: rs.id },
      summary: { users_gaining: 1, users_losing: 0, scopes_gained: ["files:write"], scopes_lost: [], tools_gained: ["delete_file", "write_file"], tools_lost: [] },
      warnings: [],
    });
    expect(r.body.safest_fix).toMatch(/Editor/);
    expect(r.body.decision_id).toMatch(/^sim_/);
    expect(r.body.policy_revision.policy_etag).toMatch(/^"/);
    expect(r.body.policy_revision.audit_seq).toBeGreaterThan(0);
    expect(r.body.matched_bindings).toEqual([]);

    // The same user may read: allowed, and the binding that grants it is named.
    const ok = await simulate({ user_id: u.id, tool_id: toolIds.read_file });
    expect(ok.body.verdict).toBe("allowed");
    expect(ok.body.failed_condition).toBeNull();
    expect(ok.body.matched_bindings.map((b: { binding_id: string }) => b.binding_id)).toEqual([binding]);
    expect((ok.body.decision_trace as { state: string }[]).every((s) => s.state === "ok" || s.state === "skipped")).toBe(true);
  });

  it("the fix's impact is what happens when the fix is applied through the API (effective access before and after)", async () => {
    const access = async (id: string) => {
      const r = await h.admin("GET", `/svc/v1/applications/${rs.id}/effective-access?user_id=${id}`);
      expect(r.status, r.text).toBe(200);
      return { scopes: r.body.scopes as string[], tools: (r.body.tools as { name: string }[]).map((t) => t.name) };
    };
    const minus = (a: string[], b: string[]) => a.filter((x) => !b.includes(x)).sort();
    // A user with no role at all, and a Viewer: each denied write_file, each with an add_binding fix.
    const bare = await user();
    const reader = await user();
    await bind(`/uflow/v2/users/${reader.id}`, viewer);
    const others = [await user(), reader];
    for (const u of [bare, reader]) {
      const r = await simulate({ user_id: u.id, tool_id: toolIds.write_file });
      expect(r.body.failed_condition).toBe("missing_role_scope");
      const fix = r.body.fix;
      expect(fix.kind).toBe("add_binding");
      const impact = fix.impact;
      expect(impact.change).toEqual({ kind: "binding_add", subject_type: "user", subject_id: u.id, role_id: fix.role_id, scope_type: "resource_server", scope_id: rs.id });
      const watched = [u, ...others.filter((o) => o.id !== u.id)];
      const before = await Promise.all(watched.map((w) => access(w.id)));
      // Apply the fix as written, through the bindings API.
      const applied = await bind(`/uflow/v2/users/${fix.subject_id}`, fix.role_id, { scope_type: fix.scope_type, scope_id: fix.scope_id });
      const after = await Promise.all(watched.map((w) => access(w.id)));
      const gainers = watched.filter((_, i) => minus(after[i]!.scopes, before[i]!.scopes).length + minus(after[i]!.tools, before[i]!.tools).length > 0);
      const losers = watched.filter((_, i) => minus(before[i]!.scopes, after[i]!.scopes).length + minus(before[i]!.tools, after[i]!.tools).length > 0);
      expect(gainers.map((g) => g.id)).toEqual([u.id]);
      expect(losers).toEqual([]);
      expect(impact.summary).toEqual({
        users_gaining: gainers.length,
        users_losing: 0,
        scopes_gained: minus(after[0]!.scopes, before[0]!.scopes),
        scopes_lost: [],
        tools_gained: minus(after[0]!.tools, before[0]!.tools),
        tools_lost: [],
      });
      expect(impact.summary.tools_gained).toContain("write_file");
      expect(impact.warnings).toEqual([]);
      // The fix worked: the simulation now allows the call, through the binding just made.
      const now = await simulate({ user_id: u.id, tool_id: toolIds.write_file });
      expect(now.body.verdict).toBe("allowed");
      expect(now.body.matched_bindings.map((b: { binding_id: string }) => b.binding_id)).toContain(applied);
    }
  });

  it("fixes the preview has no vocabulary for keep impact null", async () => {
    const s = await user();
    await bind(`/uflow/v2/users/${s.id}`, editor);
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${s.id}/suspend`, { reason: "test" })).status).toBe(200);
    const r = await simulate({ user_id: s.id, tool_id: toolIds.read_file });
    expect(r.body.fix).toEqual({ kind: "reactivate_end_user", user_id: s.id, impact: null });
  });

  it("an expired binding is the failed condition, with a fix naming it; a suspended end user stops at end_user_active", async () => {
    const u = await user();
    const binding = await bind(`/uflow/v2/users/${u.id}`, editor, { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect((await simulate({ user_id: u.id, tool_id: toolIds.write_file })).body.verdict).toBe("allowed");
    clock.advance(120_000);
    const r = await simulate({ user_id: u.id, tool_id: toolIds.write_file });
    expect(r.body.verdict).toBe("denied");
    expect(r.body.failed_condition).toBe("binding_expired");
    expect(r.body.fix).toMatchObject({ kind: "extend_binding", binding_id: binding });

    const s = await user();
    await bind(`/uflow/v2/users/${s.id}`, editor);
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${s.id}/suspend`, { reason: "test" })).status).toBe(200);
    const sus = await simulate({ user_id: s.id, tool_id: toolIds.read_file });
    expect(sus.body.failed_condition).toBe("end_user_suspended");
    expect(stateOf(sus.body.decision_trace, "user_active")).toBe("not_evaluated");
    expect(sus.body.effective_scopes).toEqual([]);

    const m = await user();
    await bind(`/uflow/v2/users/${m.id}`, editor);
    const patched = await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${m.id}`, { status: "suspended" });
    expect(patched.status, patched.text).toBe(200);
    const ms = await simulate({ user_id: m.id, tool_id: toolIds.read_file });
    expect(ms.body).toMatchObject({ verdict: "denied", failed_condition: "membership_not_active", fix: { kind: "reactivate_membership", user_id: m.id } });
  });

  it("a client's connection and allowed scopes are judged as introspection judges them", async () => {
    const u = await user();
    await bind(`/uflow/v2/users/${u.id}`, editor);
    const narrow = await insertClient(h, { tenantId: h.workspaceId, allowedScopes: ["files:read"] });
    const r = await simulate({ user_id: u.id, tool_id: toolIds.write_file, client_id: narrow.clientId });
    expect(r.body.failed_condition).toBe("client_scope_not_allowed");
    expect(r.body.effective_scopes).toEqual(["files:read"]);
    expect(r.body.fix).toMatchObject({ kind: "allow_client_scope", client_id: narrow.clientId, scope_id: "files:write" });
    const unknown = await simulate({ user_id: u.id, tool_id: toolIds.read_file, client_id: "no-such-client" });
    expect(unknown.body.failed_condition).toBe("client_unknown_or_revoked");
  });

  it("validates input, and 404s a tool of another application or an unknown user", async () => {
    const u = await user();
    expect((await simulate({ user_id: "x", tool_id: toolIds.read_file })).status).toBe(400);
    expect((await simulate({ user_id: u.id, tool_id: toolIds.read_file, extra: 1 })).status).toBe(400);
    expect((await simulate({ user_id: u.id, tool_id: "00000000-0000-4000-8000-000000000000" })).body).toEqual({ error: "tool not found" });
    expect((await simulate({ user_id: "00000000-0000-4000-8000-000000000000", tool_id: toolIds.read_file })).status).toBe(404);
  });

  it("roles (docs/decisions/0032): a readonly_auditor may read effective access but not simulate; a member neither", async () => {
    const ws = h.workspaceId;
    const person = async (type: string) => {
      const email = `${type}-${++seq}@example.test`;
      const u = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email, username: `${type}${seq}`, password: "a long enough password 7" });
      await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${u.body.id}`, { membership_type: type });
      return { id: u.body.id as string, token: await h.login(email, "a long enough password 7", ws) };
    };
    const auditor = await person("readonly_auditor");
    const member = await person("member");
    const auditorToken = auditor.token;
    const memberToken = member.token;
    const body = { user_id: auditor.id, tool_id: toolIds.read_file };
    expect((await simulate(body, auditorToken)).status).toBe(403);
    expect((await simulate(body, memberToken)).status).toBe(403);
    const path = `/svc/v1/applications/${rs.id}/effective-access?user_id=${auditor.id}`;
    expect((await h.request("GET", path, { token: auditorToken })).status).toBe(200);
    expect((await h.request("GET", path, { token: memberToken })).status).toBe(403);
  });

  it("workspace isolation: another workspace's owner gets 404 for this application", async () => {
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const u = await user();
    const r = await simulate({ user_id: u.id, tool_id: toolIds.read_file }, other.token);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "application not found" });
    expect((await h.request("GET", `/svc/v1/applications/${rs.id}/effective-access?user_id=${u.id}`, { token: other.token })).status).toBe(404);
  });
});

describe("effective access with the path", () => {
  it("user -> group -> binding -> role -> scope -> tool, from the resolver and the compiled policy", async () => {
    const u = await user();
    const g = (await h.admin("POST", "/uflow/v2/groups", { name: `eng${++seq}` })).body;
    expect((await h.admin("POST", `/uflow/v2/groups/${g.id}/members`, { user_id: u.id })).status).toBe(201);
    const viaGroup = await bind(`/uflow/v2/groups/${g.id}`, viewer);
    const expired = await bind(`/uflow/v2/users/${u.id}`, editor, { expires_at: new Date(clock.now().getTime() + 1000).toISOString() });
    clock.advance(2000);
    const r = await h.admin("GET", `/svc/v1/applications/${rs.id}/effective-access?user_id=${u.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.active).toBe(true);
    expect(r.body.scopes).toEqual(["files:read"]);
    expect(r.body.tools.map((t: { name: string }) => t.name)).toEqual(["list_dir", "read_file"]);
    expect(r.body.paths).toEqual([
      { via: `group:${g.name}`, binding_id: viaGroup, role_id: viewer, role_name: "Viewer", scope_type: null, scope_id: null, expires_at: null, scopes: [{ scope: "files:read", tools: ["list_dir", "read_file"] }] },
    ]);
    expect(r.body.expired_bindings.map((b: { binding_id: string }) => b.binding_id)).toEqual([expired]);
    expect((await h.admin("GET", `/svc/v1/applications/${rs.id}/effective-access`)).status).toBe(400);
  });
});

// ------------------------------------------------------------------ property test

/** mulberry32: a small seeded generator. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
    subset: <T>(xs: readonly T[], p = 0.5): T[] => xs.filter(() => next() < p),
  };
}

const SCOPES = ["files:read", "files:write", "files:admin"] as const;

describe("property: the simulation agrees with introspection plus the SDK's tools/call gate", () => {
  const SEED = Number(process.env.SIMULATION_SEED ?? 20261125);
  const ROUNDS = 3;

  it(`over ${ROUNDS} random workspaces (seed ${SEED})`, { timeout: 400_000 }, async () => {
    const r = rng(SEED);
    const server = await readyServer(h);
    expect((await h.admin("POST", `/svc/resource-servers/${server.id}/scopes`, { id: "files:admin", name: "Admin" })).status).toBe(201);
    const pending = await register(h, "https://pending.example.test", { scopes: [] });
    expect((await h.admin("POST", `/svc/resource-servers/${pending.id}/tools`, { name: "pending_tool" })).status).toBe(201);
    const apps = [
      { id: server.id, secret: server.secret, resourceUrl: server.body.resource_url as string, tools: await toolsOf(server.id) },
      { id: pending.id, secret: pending.secret, resourceUrl: pending.body.resource_url as string, tools: await toolsOf(pending.id) },
    ];
    let cases = 0;
    let allowed = 0;
    const conditions = new Map<string, number>();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // The application: random mappings (some tools unmapped), public flags and changed definitions.
        const names = Object.keys(apps[0]!.tools);
        const mappings = names.map((tool_name) => ({ tool_name, scope_ids: r.subset(SCOPES, 0.4) }));
        expect((await h.admin("PUT", `/svc/resource-servers/${server.id}/tool-scope-map`, { mappings })).status).toBe(200);
        for (const name of names) {
          await h.db.tool.update({ where: { id: apps[0]!.tools[name]! }, data: { isPublic: r.chance(0.15), liveDefinitionHash: r.chance(0.15) ? `sha256:changed-${round}` : undefined } });
          if (!r.chance(0.15)) {
            const t = await h.db.tool.findUniqueOrThrow({ where: { id: apps[0]!.tools[name]! } });
            await h.db.tool.update({ where: { id: t.id }, data: { liveDefinitionHash: t.approvedDefinitionHash } });
          }
        }
        // Roles, groups, users and bindings.
        const roles: string[] = [];
        for (let i = 0; i < 3; i++) {
          const grants = r.chance(0.8) ? [{ resource_server_id: server.id, scope_ids: r.subset(SCOPES, 0.4) }] : [];
          const role = await h.admin("POST", "/svc/authmgr/roles", { name: `r${round}-${i}`, grants });
          expect(role.status, role.text).toBe(201);
          roles.push(role.body.id);
        }
        const groups: string[] = [];
        for (let i = 0; i < 2; i++) groups.push((await h.admin("POST", "/uflow/v2/groups", { name: `g${round}-${i}` })).body.id);
        const users: string[] = [];
        for (let i = 0; i < 5; i++) users.push((await user()).id);
        const soon = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
        const later = new Date(clock.now().getTime() + 3 * 3600_000).toISOString();
        for (const u of users) {
          for (const g of r.subset(groups, 0.4)) await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
        }
        for (let i = 0; i < 8; i++) {
          const path = r.chance(0.5) ? `/uflow/v2/users/${r.pick(users)}` : `/uflow/v2/groups/${r.pick(groups)}`;
          const scope = r.pick([{}, { scope_type: "*" }, { scope_type: "resource_server", scope_id: server.id }, { scope_type: "resource_server", scope_id: pending.id }]);
          await bind(path, r.pick(roles), { ...scope, ...(r.chance(0.5) ? { expires_at: r.pick([soon, soon, later]) } : {}) });
        }
        for (const u of users) {
          const fate = r.int(5);
          if (fate === 0) await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u}`, { status: "suspended" });
          if (fate === 1) await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${u}/suspend`, { reason: "p" });
          if (fate === 2) await h.admin("DELETE", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u}`);
        }
        // Clients: pre-registered with random allowed scopes (one for another server, one revoked), dcr with an approved or revoked connection.
        const wide = await insertClient(h, { tenantId: h.workspaceId, allowedScopes: [...SCOPES] });
        const narrow = await insertClient(h, { tenantId: h.workspaceId, allowedScopes: r.subset(SCOPES) });
        const elsewhere = await insertClient(h, { tenantId: h.workspaceId, resourceServerId: pending.id, allowedScopes: [...SCOPES] });
        const revoked = await insertClient(h, { tenantId: h.workspaceId, allowedScopes: [...SCOPES] });
        await h.db.client.update({ where: { id: revoked.id }, data: { status: "revoked" } });
        const dcr = await insertClient(h, { tenantId: null as never, registrationMode: "dcr", allowedScopes: r.subset(SCOPES, 0.7) });
        const now = clock.now();
        for (const app of apps) {
          await h.db.connection.create({
            data: { clientRowId: dcr.id, clientId: dcr.clientId, resourceServerId: app.id, tenantId: h.workspaceId, status: r.pick(["approved", "revoked"]), scopesGranted: [], firstConnectedAt: now, lastConnectedAt: now },
          });
        }
        clock.advance(10 * 60_000); // the "soon" bindings have expired now (the admin token lives an hour)
        const clients: (string | undefined)[] = [undefined, wide.clientId, narrow.clientId, elsewhere.clientId, revoked.clientId, dcr.clientId];

        for (const app of apps) {
          const policy = (await h.request("GET", `/svc/resource-servers/${app.id}/sdk-policy`, { basic: [app.id, app.secret] })).body;
          const live = await h.db.tool.findMany({ where: { resourceServerId: app.id }, select: { name: true, liveDefinitionHash: true } });
          const liveHashes = new Map(live.filter((t) => t.liveDefinitionHash !== null).map((t) => [t.name, t.liveDefinitionHash!]));
          for (const u of users) {
            for (const [toolName, toolId] of Object.entries(app.tools)) {
              for (const clientId of clients) {
                const sim = await simulate({ user_id: u, tool_id: toolId, ...(clientId ? { client_id: clientId } : {}) }, h.adminToken, app.id);
                expect(sim.status, sim.text).toBe(200);
                // What the runtime decides: a user token of the client (the wide one when none is named) carrying every scope.
                const token = await h.services.oauth.issuer.issue({ subject: u, subjectType: "user", clientId: clientId ?? wide.clientId, tenantId: h.workspaceId, audience: app.resourceUrl, scopes: [...SCOPES], lifetimeSeconds: 86_400 });
                const intro = await h.request("POST", "/oauth/introspect", { basic: [app.id, app.secret], form: { token: token.access_token } });
                expect(intro.status).toBe(200);
                const runtime = intro.body.active === true && decideTool(policy, liveHashes, toolName, (intro.body.scope as string).split(" ").filter(Boolean)).allowed;
                const context = { seed: SEED, round, app: app.id === server.id ? "ready" : "pending", user: u, tool: toolName, client: clientId ?? null, introspection: intro.body, simulation: sim.body };
                expect(sim.body.verdict === "allowed", JSON.stringify(context, null, 1)).toBe(runtime);
                cases++;
                if (runtime) allowed++;
                conditions.set(sim.body.failed_condition ?? "allowed", (conditions.get(sim.body.failed_condition ?? "allowed") ?? 0) + 1);
              }
            }
          }
        }
      }
    } finally {
      await server.mcp.close();
    }
    // The generator reached both verdicts and most of the checks (a property test that cannot fail is no test).
    expect(allowed).toBeGreaterThan(0);
    expect(cases - allowed).toBeGreaterThan(0);
    for (const c of ["application_not_launched", "tool_not_mapped", "missing_role_scope", "client_unknown_or_revoked", "client_scope_not_allowed"]) expect(conditions.get(c), `${c}: ${JSON.stringify([...conditions])}`).toBeGreaterThan(0);
    console.info(`access-simulation property: ${cases} cases, ${allowed} allowed; ${JSON.stringify(Object.fromEntries(conditions))}`);
  });
});
