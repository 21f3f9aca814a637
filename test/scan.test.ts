// POST .../rescan against real MCP servers (official SDK, ephemeral ports) and real failures:
// HTTP 500, a server that never answers, a non-MCP answer, a reset connection, an auth
// challenge, an endless body, a redirect. Scans are bounded by TOOLGATE_SCAN_TIMEOUT_MS /
// _MAX_BYTES, and refused for loopback/private/link-local addresses unless
// TOOLGATE_SCAN_ALLOW_PRIVATE is on (the test servers listen on 127.0.0.1, so `h` turns it on).
//
// No assertion depends on timing: only the "hang" test uses a short deadline (its own Toolgate);
// every scan that should succeed gets a generous one, and a test that needs "the scan has reached
// the upstream" awaits the server's hit promise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, startRawServer, startResettingServer, type RawBehaviour } from "./helpers/mcp-servers";
import { register, rescan } from "./helpers/lifecycle-flow";
import { scanMcpServer } from "../src/modules/resource-servers";
import { isNonPublicAddress } from "../src/shared/outbound/address-policy";
import { PinnedConnection } from "../src/shared/outbound/pinned-fetch";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { boot } from "../src/boot";

/** Scans that should succeed (or fail for another reason than time) never hit this. */
const SCAN_TIMEOUT_MS = 10_000;
/** Only for the server that never answers. */
const HANG_TIMEOUT_MS = 300;
const PRIVATE_REFUSED = /is not allowed \(private network\); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow$/;
let h: Harness;
const cleanup: { close(): Promise<void> }[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_TIMEOUT_MS: String(SCAN_TIMEOUT_MS), TOOLGATE_SCAN_MAX_BYTES: "65536", TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
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
async function raw(kind: RawBehaviour, opts?: { location?: string }) {
  const s = await startRawServer(kind, opts);
  cleanup.push(s);
  return s;
}
/**
 * A gate in front of a good MCP server: the first request is held until release() (a scan makes its
 * requests one after another, so a held first request holds that whole scan); `hit` resolves when
 * it arrives, `secondScan` when another request arrives while it is held (a second scan running).
 */
async function gated(target: string) {
  let release!: () => void;
  const open = new Promise<void>((r) => (release = r));
  let hit!: () => void;
  let secondScan!: () => void;
  const first = { hit: new Promise<void>((r) => (hit = r)), secondScan: new Promise<void>((r) => (secondScan = r)) };
  let arrived = 0;
  let released = false;
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    arrived += 1;
    if (arrived === 1) hit();
    else if (!released) secondScan();
    if (arrived === 1) await open;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k))) as Record<string, string>;
    const upstream = await fetch(new URL(req.url!, target), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push({ close: () => new Promise<void>((r) => server.close(() => r())) } as never);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...first,
    release: () => {
      released = true;
      release();
    },
  };
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
      await expect(scanMcpServer(`${url}/mcp`, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 65536, bearerToken: secret, allowPrivateNetworks: true })).rejects.toSatisfy(
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
    ["huge", /^response too large: the upstream sent more than 65536 bytes/],
  ] as const)("(%s) answers 502 {error, failure_reason} and moves pending_scan -> scan_failed", async (kind, reason) => {
    const server = await raw(kind);
    const rs = await register(h, server.url);
    const r = await rescan(h, rs.id);
    expect(r.status).toBe(502);
    expect(Object.keys(r.body).sort()).toEqual(["error", "failure_reason"]);
    expect(r.body.failure_reason).toMatch(reason);
    expect(await get(rs.id)).toMatchObject({ state: "scan_failed", last_scan_status: "failed", last_scan_error: r.body.failure_reason, scan_generation: 0 });
    expect(server.hits()).toBeGreaterThan(0);
  });

  describe("(hang) a server that never answers", () => {
    // A Toolgate of its own with a short deadline, so no other scan can run out of time.
    let short: Harness;
    beforeAll(async () => {
      short = await startToolgate({ env: { TOOLGATE_SCAN_TIMEOUT_MS: String(HANG_TIMEOUT_MS), TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
    });
    afterAll(async () => {
      await short?.close();
    });

    it("times out: 502 with the deadline in the reason, pending_scan -> scan_failed", async () => {
      const server = await raw("hang");
      const rs = await register(short, server.url);
      const r = await rescan(short, rs.id);
      expect(r.status).toBe(502);
      expect(r.body.failure_reason).toBe(`timeout: no complete answer within ${HANG_TIMEOUT_MS} ms`);
      expect((await short.admin("GET", `/svc/resource-servers/${rs.id}`)).body).toMatchObject({ state: "scan_failed", last_scan_status: "failed", scan_generation: 0 });
      expect(server.hits()).toBeGreaterThan(0);
    });
  });

  it("reports a connection that fails (the peer resets it)", async () => {
    const server = await startResettingServer();
    cleanup.push(server);
    const rs = await register(h, server.url);
    const r = await rescan(h, rs.id);
    expect(r.status).toBe(502);
    expect(r.body.failure_reason).toMatch(/^connection failed: /);
    expect(server.connections()).toBeGreaterThan(0);
  });

  it("does not follow a redirect, not even within the origin (307 to another path)", async () => {
    const server = await raw("redirect");
    const rs = await register(h, server.url);
    const r = await rescan(h, rs.id);
    expect(r.status).toBe(502);
    expect(r.body.failure_reason).toBe("redirects are not followed: the upstream answered HTTP 307");
    expect(server.hits()).toBe(1); // the redirect target on the same server was never requested
    expect((await get(rs.id)).state).toBe("scan_failed");
  });

  it("does not follow a redirect to another server (a good MCP server that is never reached)", async () => {
    const target = await mcp({ tools: SAMPLE_TOOLS });
    const server = await raw("redirect", { location: `${target.url}/mcp` });
    const r = await rescan(h, (await register(h, server.url)).id);
    expect(r.body.failure_reason).toBe("redirects are not followed: the upstream answered HTTP 307");
    expect(target.requests).toBe(0);
  });

  it("refuses non-http(s) URLs before any network access", async () => {
    await expect(scanMcpServer("ftp://127.0.0.1/mcp", { timeoutMs: 1000, maxBytes: 1000 })).rejects.toThrow(/unsupported URL scheme ftp:/);
    await expect(scanMcpServer("file:///etc/passwd", { timeoutMs: 1000, maxBytes: 1000 })).rejects.toThrow(/unsupported URL scheme file:/);
  });

  it("stops a tools/list whose cursor never ends", async () => {
    const server = await mcp({ tools: Array.from({ length: 30 }, (_, i) => ({ name: `t${i}` })), pageSize: 1 });
    await expect(scanMcpServer(`${server.url}/mcp`, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 1 << 20, maxPages: 10, allowPrivateNetworks: true })).rejects.toThrow(
      /did not finish within 10 pages/,
    );
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
    // The first scan holds the claim once its request has reached the upstream, which holds it
    // unanswered until released: no time limit decides the order.
    await slow.hit;
    expect((await get(rs.id)).last_scan_status).toBe("in_progress");
    const second = await rescan(h, rs.id);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/already running/);
    slow.release(); // the upstream now answers 500
    const done = await first;
    expect(done.status).toBe(502);
    expect(done.body.failure_reason).toMatch(/HTTP 500/);
    expect(await get(rs.id)).toMatchObject({ scan_generation: 0, last_scan_status: "failed" });
  });

  it("parallel rescans of a good server: exactly one runs, scan_generation moves by one", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    // The first scan is held at the upstream until the other four have answered (or a second scan
    // reaches the upstream, which is the failure): no timing decides the order.
    const gate = await gated(server.url);
    const rs = await register(h, gate.url);
    let settled = 0;
    let fourSettled!: () => void;
    const four = new Promise<void>((r) => (fourSettled = r));
    const pending = Array.from({ length: 5 }, () => rescan(h, rs.id).finally(() => ++settled === 4 && fourSettled()));
    await gate.hit;
    await Promise.race([four, gate.secondScan]);
    gate.release();
    const results = await Promise.all(pending);
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

describe("private networks (SSRF): refused unless TOOLGATE_SCAN_ALLOW_PRIVATE is on", () => {
  // A Toolgate with the default setting.
  let strict: Harness;
  beforeAll(async () => {
    strict = await startToolgate({ env: { TOOLGATE_SCAN_TIMEOUT_MS: String(SCAN_TIMEOUT_MS) } });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it("is off by default: a loopback server is refused with 502 and never connected to", async () => {
    expect(strict.config.scan.allowPrivateNetworks).toBe(false);
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const tcp = await startResettingServer(); // counts TCP connections, not just HTTP requests
    cleanup.push(tcp);
    for (const url of [server.url, tcp.url]) {
      const rs = await register(strict, url);
      const r = await rescan(strict, rs.id);
      expect(r.status).toBe(502);
      expect(r.body).toEqual({
        error: expect.any(String),
        failure_reason: "the address 127.0.0.1 is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow",
      });
      expect((await strict.admin("GET", `/svc/resource-servers/${rs.id}`)).body).toMatchObject({ state: "scan_failed", last_scan_error: r.body.failure_reason });
    }
    expect(server.requests).toBe(0);
    expect(tcp.connections()).toBe(0);
  });

  it("checks what a host name resolves to (localhost), without echoing the answer", async () => {
    const server = await mcp({ tools: SAMPLE_TOOLS });
    const rs = await register(strict, server.url.replace("127.0.0.1", "localhost"));
    const r = await rescan(strict, rs.id);
    expect(r.body.failure_reason).toBe("the address of localhost is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow");
    expect(server.requests).toBe(0);
  });

  it.each([
    "http://127.0.0.1:1/mcp",
    "http://127.1/mcp",
    "http://2130706433/mcp",
    "http://0.0.0.0/mcp",
    "http://10.0.0.1/mcp",
    "http://172.16.0.1/mcp",
    "http://172.31.255.254/mcp",
    "http://192.168.1.1/mcp",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/mcp",
    "http://224.0.0.1/mcp",
    "http://255.255.255.255/mcp",
    "http://[::1]/mcp",
    "http://[::]/mcp",
    "http://[fe80::1]/mcp",
    "http://[fd00:ec2::254]/mcp",
    "http://[ff02::1]/mcp",
    "http://[64:ff9b::10.0.0.1]/mcp",
  ])("refuses %s before any connection", async (url) => {
    await expect(scanMcpServer(url, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 1000 })).rejects.toThrow(PRIVATE_REFUSED);
  });

  // IPv4-compatible (::/96) and IPv4-mapped (::ffff:0:0/96) forms: refused whatever they spell and
  // whatever TOOLGATE_SCAN_ALLOW_PRIVATE says (the loopback server below would otherwise answer).
  it.each([
    ["http://[::7f00:1]", "::7f00:1"],
    ["http://[::127.0.0.1]", "::7f00:1"],
    ["http://[::a9fe:a9fe]/latest/meta-data/", "::a9fe:a9fe"],
    ["http://[::808:808]", "::808:808"],
    ["http://[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["http://[::ffff:a9fe:a9fe]", "::ffff:a9fe:a9fe"],
    ["https://[::ffff:192.168.0.1]", "::ffff:c0a8:1"],
    ["http://[::ffff:8.8.8.8]", "::ffff:808:808"],
  ])("refuses %s before any connection, even with private networks allowed", async (origin, shown) => {
    const tcp = await startResettingServer(); // on 127.0.0.1: counts the connections that reach it
    cleanup.push(tcp);
    const url = `${origin}:${new URL(tcp.url).port}/mcp`;
    for (const allowPrivateNetworks of [false, true]) {
      await expect(scanMcpServer(url, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 1000, allowPrivateNetworks })).rejects.toThrow(`the address ${shown} is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)`);
    }
    expect(tcp.connections()).toBe(0);
  });

  it("classifies the range boundaries (loopback/RFC 1918/ULA/link-local/CGNAT/multicast/IPv4 in IPv6 form vs public)", () => {
    const refused = ["127.255.255.255", "10.255.255.255", "172.16.0.0", "172.31.255.255", "192.168.255.255", "169.254.0.1", "100.127.255.255", "239.255.255.255", "::ffff:10.1.2.3", "::ffff:8.8.8.8", "::8.8.8.8", "::7f00:1", "fc00::1", "fdff:ffff::1", "febf::1", "fe80::1%eth0", "64:ff9b::a9fe:a9fe", "not-an-ip"];
    const allowed = ["8.8.8.8", "11.0.0.1", "172.15.255.255", "172.32.0.0", "192.167.255.255", "169.253.255.255", "100.63.255.255", "100.128.0.0", "223.255.255.255", "::1:0:0:1", "::ffff:0:1:2", "2606:4700:4700::1111", "fbff::1", "2001:db8::1", "64:ff9b::808:808"];
    expect(refused.filter((a) => !isNonPublicAddress(a))).toEqual([]);
    expect(allowed.filter((a) => isNonPublicAddress(a))).toEqual([]);
  });

  it("connects only to the checked address: the host name is kept for Host but never resolved again", async () => {
    const { createServer } = await import("node:http");
    const hosts: (string | undefined)[] = [];
    const echo = createServer((req, res) => {
      hosts.push(req.headers.host);
      res.writeHead(200, { "Content-Type": "text/plain" }).end("pinned");
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const port = (echo.address() as { port: number }).port;
    // ".invalid" never resolves (RFC 6761): the answer can only come through the pinned address.
    const origin = new URL(`http://scan-target.invalid:${port}`);
    const connection = new PinnedConnection(origin, [{ address: "127.0.0.1", family: 4 }]);
    try {
      const res = await connection.fetch(`${origin.origin}/mcp`, { method: "POST", body: "{}" });
      expect(await res.text()).toBe("pinned");
      expect(hosts).toEqual([`scan-target.invalid:${port}`]);
      await expect(connection.fetch("http://127.0.0.1:1/", {})).rejects.toThrow(/only connects to/);
    } finally {
      connection.close();
      echo.closeAllConnections();
      echo.close();
    }
  });

  it("with the setting on, the same loopback server is scanned", async () => {
    expect(h.config.scan.allowPrivateNetworks).toBe(true);
    const server = await mcp({ tools: SAMPLE_TOOLS });
    await expect(scanMcpServer(`${server.url}/mcp`, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 1 << 20 })).rejects.toThrow(PRIVATE_REFUSED);
    expect(server.requests).toBe(0);
    const tools = await scanMcpServer(`${server.url.replace("127.0.0.1", "localhost")}/mcp`, { timeoutMs: SCAN_TIMEOUT_MS, maxBytes: 1 << 20, allowPrivateNetworks: true });
    expect(tools.map((t) => t.name).sort()).toEqual(["delete_file", "list_dir", "read_file", "write_file"]);
    const rs = await register(h, server.url);
    expect((await rescan(h, rs.id)).status).toBe(200);
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
    const user = await h.db.user.findUniqueOrThrow({ where: { tenantId_email: { tenantId: h.workspaceId, email: "auditor-scan@example.test" } } });
    await h.db.membership.update({ where: { tenantId_userId: { tenantId: h.workspaceId, userId: user.id } }, data: { membershipType: "readonly_auditor" } });
    const auditor = await h.login("auditor-scan@example.test", "password-123");
    expect((await rescan(h, rs.id, auditor)).status).toBe(403);
    expect((await h.request("GET", `/svc/resource-servers/${rs.id}/tools`, { token: auditor })).status).toBe(200);
  });
});
