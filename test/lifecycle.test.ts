// The resource-server state machine end to end over HTTP (spec "States and transitions"): every
// allowed transition, every refused one, the setup checklist that gates activation, validate,
// activation-preview, test-login, the derived badges, and workspace isolation of each endpoint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, startRawServer, type McpTestServer, type RawTestServer } from "./helpers/mcp-servers";
import { createRole, readyServer, register, rescan } from "./helpers/lifecycle-flow";
import { ManualClock } from "../src/shared/clock";
import { ChangeSet } from "../src/storage";

let h: Harness;
const clock = new ManualClock(new Date("2026-03-01T10:00:00.000Z"));
let good: McpTestServer;
let broken: RawTestServer;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  // The MCP test servers listen on 127.0.0.1; private addresses are refused unless allowed.
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  good = await startMcpServer({ tools: SAMPLE_TOOLS });
  broken = await startRawServer("http500");
  servers.push(good, broken);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const s of readies) await s.mcp.close();
  await h?.close();
});
const readies: { mcp: McpTestServer }[] = [];

const path = (id: string, p = "") => `/svc/resource-servers/${id}${p}`;
const call = (id: string, method: string, p: string, json?: unknown) => h.admin(method, path(id, p), json);
const state = async (id: string) => (await h.admin("GET", path(id))).body.state;

/** A needs_setup server with SAMPLE_TOOLS and nothing else configured. */
async function scanned(): Promise<string> {
  const rs = await register(h, good.url);
  expect((await rescan(h, rs.id)).status).toBe(200);
  return rs.id;
}

async function mapAll(id: string) {
  await call(id, "POST", "/scopes", { id: "files:read", name: "Read" });
  const r = await call(id, "PUT", "/tool-scope-map", { mappings: SAMPLE_TOOLS.map((t) => ({ tool_name: t.name, scope_ids: ["files:read"] })) });
  expect(r.status).toBe(200);
}

describe("the state table", () => {
  it("registration -> pending_scan -> (scan) needs_setup -> (activate) ready, with setup_completed_at/by", async () => {
    const rs = await register(h, good.url);
    expect(rs.body.status).toBe("pending_scan");
    expect((await rescan(h, rs.id)).body.state).toBe("needs_setup");
    await mapAll(rs.id);
    expect((await call(rs.id, "PUT", "/access-policy", { enabled: false })).status).toBe(200);
    clock.advance(60_000);
    const act = await call(rs.id, "POST", "/activate");
    expect(act.status, act.text).toBe(200);
    expect(act.body).toMatchObject({
      state: "ready",
      status: "ready",
      setup_completed_at: "2026-03-01T10:01:00.000Z",
      setup_completed_by: h.ownerId,
      badges: { discovered: false, not_launched: false },
    });
  });

  it("refuses activation from pending_scan and scan_failed with a 409 that says why", async () => {
    const pending = await register(h, good.url);
    const r1 = await call(pending.id, "POST", "/activate");
    expect(r1.status).toBe(409);
    expect(r1.body.error).toMatch(/not been scanned yet \(state pending_scan\)/);

    const failed = await register(h, broken.url);
    expect((await rescan(h, failed.id)).status).toBe(502);
    const r2 = await call(failed.id, "POST", "/activate");
    expect(r2.status).toBe(409);
    expect(r2.body.error).toMatch(/last scan failed \(state scan_failed\)/);
    expect(await state(failed.id)).toBe("scan_failed");
  });

  it("refuses activation with checklist gaps: 409 {error, failed:[ids]} and no state change", async () => {
    const id = await scanned();
    const r = await call(id, "POST", "/activate");
    expect(r.status).toBe(409);
    expect(r.body.failed).toEqual(["scopes_defined", "all_tools_mapped", "access_policy_set"]);
    expect(r.body.error).toMatch(/setup is incomplete \(scopes_defined, all_tools_mapped, access_policy_set\)/);
    expect(await state(id)).toBe("needs_setup");
    expect((await h.admin("GET", path(id))).body.setup_completed_at).toBeNull();
  });

  it("ready has no outgoing transition: no second activation, rescans keep it ready, no un-activate", async () => {
    const rs = await readyServer(h);
    readies.push(rs);
    const again = await call(rs.id, "POST", "/activate");
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already ready/);

    const ok = await rescan(h, rs.id);
    expect(ok.body).toMatchObject({ state: "ready", scan_generation: 2 });

    await rs.mcp.close(); // the upstream goes away
    const failed = await rescan(h, rs.id);
    expect(failed.status).toBe(502);
    expect(await h.admin("GET", path(rs.id)).then((r) => r.body)).toMatchObject({ state: "ready", last_scan_status: "failed", scan_generation: 2 });

    for (const p of ["/deactivate", "/unactivate", "/reset"]) expect((await call(rs.id, "POST", p)).status).toBe(404);
    expect((await h.admin("PUT", path(rs.id), { status: "needs_setup" })).status).toBe(400);
  });

  it("derives the badges on every read (list and get), never stores them", async () => {
    const pending = await register(h, good.url);
    const list = (await h.admin("GET", "/svc/resource-servers")).body.items.find((s: { id: string }) => s.id === pending.id);
    expect(list.badges).toEqual({ discovered: false, not_launched: true });
    await rescan(h, pending.id);
    const after = (await h.admin("GET", "/svc/resource-servers")).body.items.find((s: { id: string }) => s.id === pending.id);
    expect(after.badges).toEqual({ discovered: true, not_launched: true });
  });
});

describe("setup checklist, validate and activation-preview", () => {
  it("each item turns green with its own fix; can_activate only when all are", async () => {
    const pending = await register(h, good.url);
    const before = (await call(pending.id, "GET", "/setup")).body;
    expect(before).toMatchObject({ rs_id: pending.id, state: "pending_scan", can_activate: false });
    expect(before.reason).toMatch(/not been scanned/);
    expect(before.checklist.map((i: { id: string }) => i.id)).toEqual(["tools_known", "scopes_defined", "all_tools_mapped", "access_policy_set"]);
    expect(before.checklist[0]).toMatchObject({ id: "tools_known", ok: false, detail: expect.stringMatching(/no tools known/) });

    await rescan(h, pending.id);
    const id = pending.id;
    const items = async () => Object.fromEntries((await call(id, "GET", "/setup")).body.checklist.map((i: { id: string; ok: boolean }) => [i.id, i.ok]));
    expect(await items()).toEqual({ tools_known: true, scopes_defined: false, all_tools_mapped: false, access_policy_set: false });
    const gaps = (await call(id, "GET", "/setup")).body.checklist[2];
    expect(gaps.detail).toMatch(/4 tools with no scope that are not public: "delete_file", "list_dir", "read_file", "write_file"/);

    await call(id, "POST", "/scopes", { id: "files:read", name: "Read" });
    expect(await items()).toMatchObject({ scopes_defined: true, all_tools_mapped: false });
    await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read"] }, { tool_name: "list_dir", scope_ids: ["files:read"] }, { tool_name: "write_file", scope_ids: ["files:read"] }] });
    const tools = (await call(id, "GET", "/tools")).body.items;
    const del = tools.find((t: { tool_name: string }) => t.tool_name === "delete_file");
    await call(id, "POST", `/tools/${del.tool_id}/public`, { confirm: "delete_file" });
    expect(await items()).toMatchObject({ all_tools_mapped: true, access_policy_set: false });

    const role = await createRole(h, h.workspaceId, "checklist-viewer");
    await call(id, "PUT", "/access-policy", { enabled: true, default_role_id: role });
    const done = (await call(id, "GET", "/setup")).body;
    expect(done.can_activate).toBe(true);
    expect(done.reason).toBeUndefined();
    expect(done.checklist[3].detail).toMatch(/checklist-viewer/);
  });

  it("a server whose every tool is public needs no scope", async () => {
    const id = await scanned();
    for (const t of (await call(id, "GET", "/tools")).body.items) {
      expect((await call(id, "POST", `/tools/${t.tool_id}/public`, { confirm: t.tool_name })).status).toBe(200);
    }
    await call(id, "PUT", "/access-policy", { enabled: false });
    const s = (await call(id, "GET", "/setup")).body;
    expect(s.checklist[1]).toMatchObject({ id: "scopes_defined", ok: true, detail: expect.stringMatching(/every tool is public/) });
    expect(s.can_activate).toBe(true);
  });

  it("validate re-checks the same items, changes nothing, and warns about stale tools", async () => {
    const changing = await startMcpServer({ tools: SAMPLE_TOOLS });
    servers.push(changing);
    const rs = await register(h, changing.url);
    await rescan(h, rs.id);
    changing.setTools(SAMPLE_TOOLS.slice(0, 3));
    await rescan(h, rs.id);
    const before = await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } });
    const v = await call(rs.id, "POST", "/validate");
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ rs_id: rs.id, valid: false, can_activate: false, state: "needs_setup", checked_at: clock.now().toISOString() });
    expect(v.body.checklist).toEqual((await call(rs.id, "GET", "/setup")).body.checklist);
    expect(v.body.warnings.join(" ")).toMatch(/stale\): delete_file/);
    expect(await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } })).toEqual(before);
  });

  it("activation-preview shows the exact policy activation would enforce and which clients exist", async () => {
    const id = await scanned();
    await call(id, "POST", "/scopes", { id: "files:read", name: "Read" });
    await call(id, "POST", "/scopes", { id: "files:write", name: "Write" });
    await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:write", "files:read"] }, { tool_name: "write_file", scope_ids: ["files:write"] }] });
    const list = (await call(id, "GET", "/tools")).body.items;
    await call(id, "POST", `/tools/${list.find((t: { tool_name: string }) => t.tool_name === "list_dir").tool_id}/public`, { confirm: "list_dir" });
    await insertClient(h, { clientId: `preview-${id}`, tenantId: h.workspaceId, resourceServerId: id, clientName: "CI bot", allowedScopes: ["files:read"] });
    const p = (await call(id, "GET", "/activation-preview")).body;
    expect(p.scope_matrix).toEqual({ list_dir: [], read_file: ["files:read", "files:write"], write_file: ["files:write"] });
    expect(p.denied_tools).toEqual(["delete_file"]);
    expect(p.public_tools).toEqual(["list_dir"]);
    expect(p.can_activate).toBe(false);
    expect(p.access_policy).toMatchObject({ configured: false, enabled: false });
    expect(p.clients).toEqual({ count: 1, items: [{ client_id: `preview-${id}`, client_name: "CI bot", kind: "m2m", registration_mode: "prereg", status: "approved", allowed_scopes: ["files:read"] }] });
    // The preview is a read: the server is still not ready.
    expect(await state(id)).toBe("needs_setup");
  });
});

describe("test-login", () => {
  it("reports OAuth readiness, the SDK policy state and tool counts", async () => {
    const id = await scanned();
    await call(id, "POST", "/tools", { name: "manual_tool" });
    await mapAll(id);
    const r = await call(id, "POST", "/test-login");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      rs_id: id,
      state: "needs_setup",
      ok: true,
      oauth: { ready: true, token_minted: true, token_verified: true, introspection_secret_current: true, audience: expect.stringMatching(new RegExp(`^${good.url}/mcp/rs\\d+$`)) },
      sdk_policy: { state: "needs_setup", policy_complete: false, generation: 1, mapped_tools: 0, reason: expect.stringMatching(/not activated yet/) },
      tools: { total: 5, by_source: { scan: 4, manifest: 0, manual: 1 }, mapped: 4, public: 0, unmapped: 1, stale: 0 },
    });
    // The probe token is never handed out.
    expect(r.text).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
  });

  it("notices when introspection does not hold the current secret", async () => {
    const id = await scanned();
    // Simulate another instance having rotated the secret while this one missed the notification:
    // the registry keeps the hash it loaded, the row has another.
    // A raw statement is not a tracked write, so this process's cached entry keeps the old hash.
    await h.services.registry.get(id);
    await h.db.$executeRaw`UPDATE "ResourceServer" SET "introspectionSecretHash" = ${"rotated-elsewhere"} WHERE "id" = ${id}`;
    const r = await call(id, "POST", "/test-login");
    expect(r.body.ok).toBe(false);
    expect(r.body.oauth).toMatchObject({ ready: false, introspection_secret_current: false, detail: expect.stringMatching(/current secret/) });
    const missed = new ChangeSet();
    missed.add(`server:${id}`);
    h.services.changes.receive(missed); // the notification arrives
    expect((await call(id, "POST", "/test-login")).body.oauth.introspection_secret_current).toBe(true);
  });
});

describe("workspace isolation of every lifecycle endpoint", () => {
  it("another workspace gets 404 everywhere and changes nothing", async () => {
    const rs = await readyServer(h);
    readies.push(rs);
    const other = await h.createWorkspace("lifecycle-iso@example.test");
    const as = (m: string, p: string, json?: unknown) => h.request(m, path(rs.id, p), { token: other.token, json });
    const tools = (await call(rs.id, "GET", "/tools")).body.items;
    const before = await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } });
    const requests: [string, string, unknown?][] = [
      ["POST", "/rescan"],
      ["GET", "/setup"],
      ["POST", "/validate"],
      ["GET", "/activation-preview"],
      ["POST", "/activate"],
      ["POST", "/test-login"],
      ["GET", "/access-policy"],
      ["PUT", "/access-policy", { enabled: false }],
      ["GET", "/scope-matrix"],
      ["GET", "/tools"],
      ["POST", "/tools", { name: "intruder" }],
      ["POST", `/tools/${tools[0].tool_id}/public`, { confirm: tools[0].tool_name }],
      ["GET", "/scopes"],
      ["POST", "/scopes", { id: "x:y", name: "x" }],
      ["DELETE", "/scopes/files:read"],
      ["PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: [] }] }],
      ["GET", "/sdk-manifest-status"],
      ["GET", "/drift-events"],
      ["PUT", "/clients/some-client/approve-redirects"],
      ["POST", "/clients/some-client/rotate-secret", { grace_seconds: 60 }],
    ];
    for (const [m, p, json] of requests) {
      const r = await as(m, p, json);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    expect(await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } })).toEqual(before);
    expect((await call(rs.id, "GET", "/scope-matrix")).body.scope_matrix).toMatchObject({ read_file: ["files:read"] });
    expect(await h.db.driftEvent.count({ where: { rsId: rs.id } })).toBe(0);
  });

  it("a malformed server id is a 400 naming the field", async () => {
    const r = await h.admin("GET", "/svc/resource-servers/nope/setup");
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^id: /);
  });
});
