// Runtime endpoints (Basic rs_id:introspection_secret): GET sdk-policy from the in-memory compiled
// policy (ETag, 304, invalidation by every write that changes it, in this process and in another
// instance after its version poll), PUT sdk-manifest and the admin's sdk-manifest-status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { readyServer, register, rescan, type ReadyServer } from "./helpers/lifecycle-flow";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { createLogger } from "../src/shared/logger";

let h: Harness;
let mcp: McpTestServer;
const readies: ReadyServer[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
});
afterAll(async () => {
  await mcp?.close();
  for (const r of readies) await r.mcp.close();
  await h?.close();
});

async function ready(): Promise<ReadyServer> {
  const rs = await readyServer(h);
  readies.push(rs);
  return rs;
}
const policy = (id: string, secret: string, headers: Record<string, string> = {}) => h.request("GET", `/svc/resource-servers/${id}/sdk-policy`, { basic: [id, secret], headers });
const admin = (id: string, method: string, p: string, json?: unknown) => h.admin(method, `/svc/resource-servers/${id}${p}`, json);
const manifest = (id: string, secret: string, body: unknown) => h.request("PUT", `/svc/resource-servers/${id}/sdk-manifest`, { basic: [id, secret], json: body });

describe("sdk-policy authentication", () => {
  it("accepts only Basic rs_id:introspection_secret of the server named in the path", async () => {
    const a = await register(h, mcp.url);
    const b = await register(h, mcp.url);
    expect((await policy(a.id, a.secret)).status).toBe(200);
    const none = await h.request("GET", `/svc/resource-servers/${a.id}/sdk-policy`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic realm="toolgate-runtime"/);
    expect(none.body).toEqual({ error: "invalid resource server credentials" });
    expect((await policy(a.id, "wrong")).status).toBe(401);
    // b's valid credentials do not read a's policy.
    expect((await h.request("GET", `/svc/resource-servers/${a.id}/sdk-policy`, { basic: [b.id, b.secret] })).status).toBe(401);
    // The admin JWT is not a runtime credential.
    expect((await h.request("GET", `/svc/resource-servers/${a.id}/sdk-policy`, { token: h.adminToken })).status).toBe(401);
    expect((await policy("not-a-uuid", a.secret)).status).toBe(401);
  });

  it("after rotation the old secret fails at once and the new one works; deletion ends access", async () => {
    const rs = await ready();
    const rot = await admin(rs.id, "POST", "/rotate-introspection-secret");
    expect((await policy(rs.id, rs.secret)).status).toBe(401);
    const fresh = await policy(rs.id, rot.body.introspection_secret);
    expect(fresh.status).toBe(200);
    expect(fresh.body.drift_events.map((e: { event_type: string }) => e.event_type)).toEqual(["secret_rotated"]);
    expect((await admin(rs.id, "DELETE", "")).status).toBe(204);
    expect((await policy(rs.id, rot.body.introspection_secret)).status).toBe(401);
  });
});

describe("sdk-policy document", () => {
  it("before activation: empty matrix, policy_complete false with a reason (deny everything)", async () => {
    const rs = await register(h, mcp.url);
    const r = await policy(rs.id, rs.secret);
    expect(r.body).toEqual({ rs_id: rs.id, state: "pending_scan", generation: 0, policy_complete: false, reason: expect.stringMatching(/not activated yet \(state pending_scan\)/), scope_matrix: {}, definition_hashes: {}, drift_events: [] });
    await rescan(h, rs.id);
    await admin(rs.id, "POST", "/scopes", { id: "files:read", name: "Read" });
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read"] }] });
    const mapped = await policy(rs.id, rs.secret);
    // Mappings exist, but nothing is enforced before `ready`.
    expect(mapped.body).toMatchObject({ state: "needs_setup", generation: 1, policy_complete: false, scope_matrix: {} });
  });

  it("once ready: the compiled matrix (empty array = public, unmapped = absent), generation, no reason", async () => {
    const rs = await ready();
    const list = (await admin(rs.id, "GET", "/tools")).body.items;
    await admin(rs.id, "POST", `/tools/${list.find((t: { tool_name: string }) => t.tool_name === "list_dir").tool_id}/public`, { confirm: "list_dir" });
    await admin(rs.id, "POST", "/tools", { name: "unmapped_manual" });
    const r = await policy(rs.id, rs.secret);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("no-cache");
    expect(r.body).toEqual({
      rs_id: rs.id,
      state: "ready",
      generation: 1,
      policy_complete: true,
      scope_matrix: { delete_file: ["files:write"], list_dir: [], read_file: ["files:read"], write_file: ["files:write"] },
      // The pins of the mapped tools as scanned (catalog/definition-pins.ts); the manual tool has none.
      definition_hashes: Object.fromEntries(
        list.filter((t: { tool_name: string }) => t.tool_name !== "unmapped_manual").map((t: { tool_name: string; definition_hash: string }) => [t.tool_name, t.definition_hash]),
      ),
      drift_events: [],
    });
    expect(Object.keys(r.body.definition_hashes)).toEqual(["delete_file", "list_dir", "read_file", "write_file"]);
  });

  it("answers 304 to a matching If-None-Match (strong, weak, lists, *) and 200 with a new ETag after a change", async () => {
    const rs = await ready();
    const first = await policy(rs.id, rs.secret);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const r = await policy(rs.id, rs.secret, { "if-none-match": inm });
      expect(r.status, inm).toBe(304);
      expect(r.text).toBe("");
      expect(r.headers.get("etag")).toBe(etag);
    }
    expect((await policy(rs.id, rs.secret, { "if-none-match": '"stale"' })).status).toBe(200);
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read", "files:write"] }] });
    const after = await policy(rs.id, rs.secret, { "if-none-match": etag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(after.body.scope_matrix.read_file).toEqual(["files:read", "files:write"]);
  });
});

describe("invalidation: every write that changes the policy is visible at once", () => {
  it("mapping, public flag, scope deletion, new scanned tools, drift dismissal, activation", async () => {
    const rs = await ready();
    const matrix = async () => (await policy(rs.id, rs.secret)).body;

    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "list_dir", scope_ids: [] }] });
    expect((await matrix()).scope_matrix).not.toHaveProperty("list_dir");

    const tid = (await admin(rs.id, "GET", "/tools")).body.items.find((t: { tool_name: string }) => t.tool_name === "list_dir").tool_id;
    await admin(rs.id, "POST", `/tools/${tid}/public`, { confirm: "list_dir" });
    expect((await matrix()).scope_matrix.list_dir).toEqual([]);

    await admin(rs.id, "DELETE", "/scopes/files:write");
    const afterDelete = await matrix();
    expect(afterDelete.scope_matrix).not.toHaveProperty("write_file");
    expect(afterDelete.scope_matrix).not.toHaveProperty("delete_file");
    expect(afterDelete.drift_events.map((e: { event_type: string }) => e.event_type).sort()).toEqual(["scope_deleted", "tool_unmapped"]);

    rs.mcp.setTools([...SAMPLE_TOOLS, { name: "new_tool" }]);
    expect((await rescan(h, rs.id)).status).toBe(200);
    const rescanned = await matrix();
    expect(rescanned.generation).toBe(2);
    expect(rescanned.scope_matrix).not.toHaveProperty("new_tool"); // discovered, not mapped: denied
    await admin(rs.id, "POST", "/scopes", { id: "search", name: "Search" });
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "new_tool", scope_ids: ["search"] }] });
    expect((await matrix()).scope_matrix.new_tool).toEqual(["search"]);

    for (const e of rescanned.drift_events) await admin(rs.id, "POST", `/drift-events/${e.id}/dismiss`);
    expect((await matrix()).drift_events).toEqual([]);
  });

  it("activation turns the empty matrix into the compiled one", async () => {
    const rs = await register(h, mcp.url);
    await rescan(h, rs.id);
    await admin(rs.id, "POST", "/scopes", { id: "all", name: "All" });
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: SAMPLE_TOOLS.map((t) => ({ tool_name: t.name, scope_ids: ["all"] })) });
    await admin(rs.id, "PUT", "/access-policy", { enabled: false });
    expect((await policy(rs.id, rs.secret)).body.policy_complete).toBe(false);
    expect((await admin(rs.id, "POST", "/activate")).status).toBe(200);
    const r = await policy(rs.id, rs.secret);
    expect(r.body).toMatchObject({ policy_complete: true, scope_matrix: { read_file: ["all"] } });
    expect(r.body).not.toHaveProperty("reason");
  });

  it("another instance sees a change once it commits (cross-instance invalidation)", async () => {
    const rs = await ready();
    const { db, masterKey } = await boot(h.config);
    let other: App | undefined;
    try {
      other = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent") });
      await other.start();
      const seen = async () => (await other!.services.lifecycle.policies.get(rs.id))!.document.scope_matrix;
      expect((await seen()).read_file).toEqual(["files:read"]);
      await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:write"] }] });
      await other.catchUp();
      expect((await seen()).read_file).toEqual(["files:write"]);
    } finally {
      await other?.close();
      await db.$disconnect();
    }
  });
});

describe("sdk-manifest", () => {
  it("records a valid push: new tools get source manifest, scanned tools keep theirs; status explains gaps", async () => {
    const rs = await register(h, mcp.url);
    await rescan(h, rs.id);
    expect((await admin(rs.id, "GET", "/sdk-manifest-status")).body).toEqual({
      rs_id: rs.id,
      pushed: false,
      pushed_at: null,
      valid: null,
      tool_count: 0,
      validation_errors: [],
      warnings: [],
      unmapped_tools: [],
      missing_from_manifest: [],
    });
    const r = await manifest(rs.id, rs.secret, {
      tools: [
        { name: "read_file", description: "runtime says otherwise" },
        { name: "write_file" },
        { name: "list_dir" },
        { name: "runtime_only", title: "Runtime only", input_schema: { type: "object", properties: { q: { type: "string" } } }, future_field: 1 },
      ],
      sdk_version: "1.2.3",
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ pushed: true, valid: true, tool_count: 4, validation_errors: [], created_tools: ["runtime_only"], missing_from_manifest: ["delete_file"] });
    expect(r.body.unmapped_tools).toEqual(["list_dir", "read_file", "runtime_only", "write_file"]);
    const tools = Object.fromEntries((await admin(rs.id, "GET", "/tools")).body.items.map((t: { tool_name: string }) => [t.tool_name, t]));
    expect(tools.runtime_only).toMatchObject({ source: "manifest", title: "Runtime only", input_schema: { type: "object" } });
    expect(tools.read_file).toMatchObject({ source: "scan", description: "Reads a file" });

    await admin(rs.id, "POST", "/scopes", { id: "s", name: "S" });
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "runtime_only", scope_ids: ["s"] }] });
    const status = (await admin(rs.id, "GET", "/sdk-manifest-status")).body;
    expect(status.unmapped_tools).toEqual(["list_dir", "read_file", "write_file"]);
    expect(status.warnings).toContain('tool "delete_file" was discovered by scan but the runtime does not report it');
    expect(status.pushed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("rejects an invalid push with every reason (400) and records it as invalid without touching tools", async () => {
    const rs = await register(h, mcp.url);
    const r = await manifest(rs.id, rs.secret, { tools: [{ name: "a" }, { name: "a" }, { name: "" }, { title: "no name" }] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^manifest rejected: tools\.2\.name: /);
    expect(r.body.validation_errors).toEqual(expect.arrayContaining([expect.stringMatching(/^tools\.2\.name: /), expect.stringMatching(/^tools\.3\.name: /)]));
    expect(await h.db.tool.count({ where: { resourceServerId: rs.id } })).toBe(0);
    const dup = await manifest(rs.id, rs.secret, { tools: [{ name: "a" }, { name: "a" }] });
    expect(dup.body.validation_errors).toEqual(['tools.1.name: duplicate tool name "a"']);
    expect((await admin(rs.id, "GET", "/sdk-manifest-status")).body).toMatchObject({ pushed: true, valid: false, tool_count: 2, validation_errors: ['tools.1.name: duplicate tool name "a"'] });
    expect((await manifest(rs.id, rs.secret, [])).status).toBe(400);
  });

  it("needs runtime credentials and JSON; allows manifests above the admin body limit up to its own", async () => {
    const rs = await register(h, mcp.url);
    expect((await h.request("PUT", `/svc/resource-servers/${rs.id}/sdk-manifest`, { token: h.adminToken, json: { tools: [] } })).status).toBe(401);
    const form = await h.request("PUT", `/svc/resource-servers/${rs.id}/sdk-manifest`, { basic: [rs.id, rs.secret], form: { tools: "x" } });
    expect(form.status).toBe(415);
    const big = { tools: Array.from({ length: 300 }, (_, i) => ({ name: `tool_${i}`, description: "d".repeat(1000) })) }; // ~330 kB
    const ok = await manifest(rs.id, rs.secret, big);
    expect(ok.status, ok.text.slice(0, 200)).toBe(200);
    expect(ok.body.tool_count).toBe(300);
    const huge = { tools: Array.from({ length: 200 }, (_, i) => ({ name: `t_${i}`, description: "d".repeat(6000) })) }; // ~1.2 MB
    expect((await manifest(rs.id, rs.secret, huge)).status).toBe(413);
  });
});
