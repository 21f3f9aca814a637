// POST .../rescan against real MCP servers (official SDK, ephemeral ports) and real failures:
// HTTP 500, a server that never answers, a non-MCP answer, a refused connection, an auth
// challenge, an endless body. Scans are bounded by TOOLGATE_SCAN_TIMEOUT_MS / _MAX_BYTES.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, refusedUrl, startMcpServer, startRawServer, type McpTestServer, type RawTestServer } from "./helpers/mcp-servers";
import { register, rescan } from "./helpers/lifecycle-flow";
import { scanMcpServer } from "../src/modules/resource-servers";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { boot } from "../src/boot";

const SCAN_TIMEOUT_MS = 400;
let h: Harness;
const cleanup: (McpTestServer | RawTestServer)[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_TIMEOUT_MS: String(SCAN_TIMEOUT_MS), TOOLGATE_SCAN_MAX_BYTES: "65536" } });
});
afterAll(async () => {
  for (const s of cleanup) await s.close();
  await h?.close();
});

async function mcp(opts: Parameters<typeof startMcpServer>[0]) {
  const s = await startMcpServer(opts);
  cleanup.push(s);
  return s;
}
async function raw(kind: Parameters<typeof startRawServer>[0]) {
  const s = await startRawServer(kind);
  cleanup.push(s);
  return s;
}
const get = async (id: string) => (await h.admin("GET", `/svc/resource-servers/${id}`)).body;
const tools = async (id: string) => (await h.admin("GET", `/svc/resource-servers/${id}/tools`)).body.items as any[];

describe("a successful scan", () => {
  it("discovers every tool with its metadata, bumps scan_generation and moves pending_scan -> needs_setup", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    const r = await rescan(h, rs.id);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: rs.id, state: "needs_setup", scan_generation: 1, last_successful_generation: 1, last_scan_status: "success", last_scan_error: null });
    expect(r.body.badges).toEqual({ discovered: true, not_launched: true });
    const list = await tools(rs.id);
    expect(list.map((t) => t.tool_name)).toEqual(["delete_file", "list_dir", "read_file", "write_file"]);
    const read = list.find((t) => t.tool_name === "read_file");
    expect(read).toMatchObject({ title: "Read a file", description: "Reads a file", source: "scan", stale: false, last_seen_generation: 1, is_public: false, scope_ids: [] });
    expect(read.input_schema).toMatchObject({ type: "object", properties: { input: { type: "string" } } });
  });

  it("follows tools/list pagination to the last page and keeps annotations", async () => {
    const many = Array.from({ length: 23 }, (_, i) => ({ name: `tool_${String(i).padStart(2, "0")}`, description: `tool ${i}` }));
    const server = await mcp({ tools: many, pageSize: 5 });
    const rs = await register(h, server.url);
    expect((await rescan(h, rs.id)).status).toBe(200);
    const list = await tools(rs.id);
    expect(list).toHaveLength(23);
    expect(list[22]).toMatchObject({ tool_name: "tool_22", annotations: { readOnlyHint: true } });
  });

  it("on a server whose tools change: updates seen tools, adds new ones, marks missing ones stale (kept, mappings too)", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    await rescan(h, rs.id);
    await h.admin("POST", `/svc/resource-servers/${rs.id}/scopes`, { id: "files:write", name: "Write" });
    await h.admin("PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, { mappings: [{ tool_name: "delete_file", scope_ids: ["files:write"] }] });
    await h.admin("POST", `/svc/resource-servers/${rs.id}/tools`, { name: "manual_only" });

    server.setTools([
      { name: "read_file", title: "Read any file", description: "Reads a file (v2)" },
      { name: "write_file" },
      { name: "list_dir" },
      { name: "search", description: "new in v2" },
    ]);
    const r = await rescan(h, rs.id);
    expect(r.body).toMatchObject({ state: "needs_setup", scan_generation: 2, last_successful_generation: 2 });
    const byName = Object.fromEntries((await tools(rs.id)).map((t) => [t.tool_name, t]));
    expect(byName.read_file).toMatchObject({ title: "Read any file", description: "Reads a file (v2)", last_seen_generation: 2, stale: false });
    expect(byName.search).toMatchObject({ source: "scan", last_seen_generation: 2, stale: false });
    expect(byName.delete_file).toMatchObject({ stale: true, last_seen_generation: 1, scope_ids: ["files:write"] });
    // A tool added by hand was never promised by a scan: not stale when a scan does not list it.
    expect(byName.manual_only).toMatchObject({ source: "manual", stale: false, last_seen_generation: 0 });

    server.setTools([...SAMPLE_TOOLS, { name: "search" }]);
    await rescan(h, rs.id);
    const again = Object.fromEntries((await tools(rs.id)).map((t) => [t.tool_name, t]));
    expect(again.delete_file).toMatchObject({ stale: false, last_seen_generation: 3 });
  });

  it("forwards mcp_token as a Bearer token for this scan only, and never stores or logs it", async () => {
    const token = "mcp-upstream-token-0123456789";
    const server = await mcp({ tools: SAMPLE_TOOLS, requireBearer: token });
    const rs = await register(h, server.url);
    const denied = await rescan(h, rs.id);
    expect(denied.status).toBe(502);
    expect(denied.body.failure_reason).toMatch(/^authorization required: .*401/);

    const ok = await rescan(h, rs.id, h.adminToken, { mcp_token: token });
    expect(ok.status, ok.text).toBe(200);
    expect(server.authorizations.filter((a) => a === `Bearer ${token}`).length).toBeGreaterThan(0);

    // The next scan without the token does not reuse it.
    const before = server.authorizations.length;
    expect((await rescan(h, rs.id)).status).toBe(502);
    expect(server.authorizations.slice(before).every((a) => a === undefined)).toBe(true);

    const row = await h.db.resourceServer.findUnique({ where: { id: rs.id } });
    expect(JSON.stringify(row)).not.toContain(token);
    const events = await h.db.driftEvent.findMany({ where: { rsId: rs.id } });
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it("keeps a failure reason free of the token even when the upstream echoes it", async () => {
    const secret = "echoed-secret-abcdef";
    const { createServer } = await import("node:http");
    const echo = createServer((req, res) => {
      req.resume();
      res.writeHead(400, { "Content-Type": "text/plain" }).end(`bad token ${req.headers.authorization}`);
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
    try {
      await expect(scanMcpServer(`${url}/mcp`, { timeoutMs: 1000, maxBytes: 65536, bearerToken: secret })).rejects.toSatisfy(
        (e: Error) => !e.message.includes(secret) && /HTTP 400/.test(e.message),
      );
    } finally {
      echo.closeAllConnections();
      echo.close();
    }
  });
});

describe("a failed scan", () => {
  it.each([
    ["http500", /^HTTP error: the upstream answered HTTP 500/],
    ["html", /^not an MCP server: /],
    ["hang", new RegExp(`^timeout: no complete answer within ${SCAN_TIMEOUT_MS} ms`)],
    ["huge", /^response too large: the upstream sent more than 65536 bytes/],
  ] as const)("(%s) answers 502 {error, failure_reason} and moves pending_scan -> scan_failed", async (kind, reason) => {
    const server = await raw(kind);
    const rs = await register(h, server.url);
    const started = Date.now();
    const r = await rescan(h, rs.id);
    expect(Date.now() - started).toBeLessThan(SCAN_TIMEOUT_MS + 3000);
    expect(r.status).toBe(502);
    expect(Object.keys(r.body).sort()).toEqual(["error", "failure_reason"]);
    expect(r.body.failure_reason).toMatch(reason);
    expect(await get(rs.id)).toMatchObject({ state: "scan_failed", last_scan_status: "failed", last_scan_error: r.body.failure_reason, scan_generation: 0 });
    expect(server.hits()).toBeGreaterThan(0);
  });

  it("reports a refused connection", async () => {
    const rs = await register(h, await refusedUrl());
    const r = await rescan(h, rs.id);
    expect(r.status).toBe(502);
    expect(r.body.failure_reason).toBe("connection failed: ECONNREFUSED");
  });

  it("refuses non-http(s) URLs before any network access", async () => {
    await expect(scanMcpServer("ftp://127.0.0.1/mcp", { timeoutMs: 1000, maxBytes: 1000 })).rejects.toThrow(/unsupported URL scheme ftp:/);
    await expect(scanMcpServer("file:///etc/passwd", { timeoutMs: 1000, maxBytes: 1000 })).rejects.toThrow(/unsupported URL scheme file:/);
  });

  it("stops a tools/list whose cursor never ends", async () => {
    const server = await mcp({ tools: Array.from({ length: 30 }, (_, i) => ({ name: `t${i}` })), pageSize: 1 });
    await expect(scanMcpServer(`${server.url}/mcp`, { timeoutMs: 5000, maxBytes: 1 << 20, maxPages: 10 })).rejects.toThrow(/did not finish within 10 pages/);
  });
});

describe("scan state transitions", () => {
  it("scan_failed -> needs_setup on success; needs_setup -> scan_failed on failure; never back to pending_scan", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const broken = await raw("http500");
    const rs = await register(h, broken.url);
    expect((await rescan(h, rs.id)).status).toBe(502);
    expect((await get(rs.id)).state).toBe("scan_failed");
    expect((await rescan(h, rs.id)).status).toBe(502);
    expect((await get(rs.id)).state).toBe("scan_failed"); // not pending_scan

    await h.admin("PUT", `/svc/resource-servers/${rs.id}`, { public_base_url: server.url });
    const ok = await rescan(h, rs.id);
    expect(ok.body).toMatchObject({ state: "needs_setup", scan_generation: 1, last_scan_status: "success" });
    // The error of the most recent failed scan is kept for the record (spec wording).
    expect(ok.body.last_scan_error).toMatch(/HTTP 500/);

    await h.admin("PUT", `/svc/resource-servers/${rs.id}`, { public_base_url: broken.url });
    const failed = await rescan(h, rs.id);
    expect(failed.status).toBe(502);
    expect(await get(rs.id)).toMatchObject({ state: "scan_failed", scan_generation: 1, last_successful_generation: 1, last_scan_status: "failed" });
    // Tools found earlier are kept.
    expect(await tools(rs.id)).toHaveLength(4);
    expect((await get(rs.id)).badges).toEqual({ discovered: false, not_launched: true });
  });
});

describe("concurrency and crashes", () => {
  it("a second rescan while one runs gets 409 and does not touch scan_generation", async () => {
    const slow = await raw("hang");
    const rs = await register(h, slow.url);
    const first = rescan(h, rs.id);
    // Wait until the first scan holds the claim (its request reached the upstream).
    for (let i = 0; i < 100 && slow.hits() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await get(rs.id)).last_scan_status).toBe("in_progress");
    const second = await rescan(h, rs.id);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/already running/);
    expect((await first).status).toBe(502);
    expect(await get(rs.id)).toMatchObject({ scan_generation: 0, last_scan_status: "failed" });
  });

  it("parallel rescans of a good server: exactly one runs, scan_generation moves by one", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    const results = await Promise.all(Array.from({ length: 5 }, () => rescan(h, rs.id)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(4);
    expect((await get(rs.id)).scan_generation).toBe(1);
  });

  it("a claim abandoned by a dead process can be taken over once past the deadline", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    // A fresh claim by "another process" blocks...
    await h.db.resourceServer.update({ where: { id: rs.id }, data: { lastScanStatus: "in_progress", scanStartedAt: new Date() } });
    expect((await rescan(h, rs.id)).status).toBe(409);
    // ...one far older than the deadline does not.
    await h.db.resourceServer.update({ where: { id: rs.id }, data: { scanStartedAt: new Date(Date.now() - 3_600_000) } });
    const r = await rescan(h, rs.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ last_scan_status: "success", scan_generation: 1 });
  });

  it("start-up releases scans left in_progress by a crash (state per the table) and leaves fresh ones", async () => {
    const a = await register(h, "http://127.0.0.1:9/a");
    const b = await register(h, "http://127.0.0.1:9/b");
    await h.db.resourceServer.update({ where: { id: a.id }, data: { lastScanStatus: "in_progress", scanStartedAt: new Date(Date.now() - 3_600_000) } });
    await h.db.resourceServer.update({ where: { id: b.id }, data: { lastScanStatus: "in_progress", scanStartedAt: new Date() } });
    // A second instance starting on the same database.
    const { db, masterKey } = await boot(h.config);
    const logs = new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) });
    const other = await createApp({ config: h.config, db, masterKey, logger: createLogger("info", logs) });
    try {
      expect(await get(a.id)).toMatchObject({ state: "scan_failed", last_scan_status: "failed", last_scan_error: expect.stringMatching(/^scan interrupted/) });
      expect(await get(b.id)).toMatchObject({ state: "pending_scan", last_scan_status: "in_progress" });
      expect(logLines.join("")).toMatch(/released scans abandoned/);
    } finally {
      await other.close();
      await db.$disconnect();
    }
  });
});

describe("authorization and isolation", () => {
  it("another workspace cannot rescan (404) and an unknown body field is a 400", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    const other = await h.createWorkspace("scan-iso@example.test");
    const r = await rescan(h, rs.id, other.token);
    expect(r.status).toBe(404);
    expect(server.requests).toBe(0);
    const bad = await rescan(h, rs.id, h.adminToken, { token: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^body: unknown field\(s\) token/);
    expect((await rescan(h, rs.id, h.adminToken, { mcp_token: "" })).body.error).toMatch(/^mcp_token: /);
  });

  it("needs the owner or admin role", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(h, server.url);
    await h.request("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { token: h.adminToken, json: { email: "auditor-scan@example.test", username: "aud", password: "password-123" } });
    const user = await h.db.user.findUniqueOrThrow({ where: { email: "auditor-scan@example.test" } });
    await h.db.membership.update({ where: { tenantId_userId: { tenantId: h.workspaceId, userId: user.id } }, data: { membershipType: "readonly_auditor" } });
    const auditor = await h.login("auditor-scan@example.test", "password-123");
    expect((await rescan(h, rs.id, auditor)).status).toBe(403);
    expect((await h.request("GET", `/svc/resource-servers/${rs.id}/tools`, { token: auditor })).status).toBe(200);
  });
});
