// Parallel writes to the same rows never answer 5xx, leave one of the written states behind and
// record each real change's drift event exactly once. On both databases through one instance; on
// PostgreSQL also split across two instances of the same database (the writers then race in
// separate connection pools, as behind a load balancer).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { createRole, readyServer, register, rescan } from "./helpers/lifecycle-flow";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";

vi.setConfig({ testTimeout: 120_000 });

const onPostgres = !!process.env.TEST_DATABASE_URL;
const PARALLEL = 10;
const ROUNDS = 10;

interface Answer {
  status: number;
  body: any;
  text: string;
}

interface Instance {
  url: string;
  close(): Promise<void>;
}

/** A second Toolgate on the harness's database, serving HTTP on its own ephemeral port. */
async function secondInstance(h: Harness): Promise<Instance> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent") });
  await app.start();
  const server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await app.close();
      await db.$disconnect();
    },
  };
}

async function send(base: string, method: string, path: string, opts: { token?: string; basic?: [string, string]; json?: unknown }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.basic) headers.authorization = `Basic ${Buffer.from(`${opts.basic[0]}:${opts.basic[1]}`).toString("base64")}`;
  if (opts.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(base + path, { method, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, text };
}

/** `count` requests at once, spread round-robin over the instances. */
function parallel(bases: string[], count: number, one: (base: string, i: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => one(bases[i % bases.length]!, i)));
}

/** Every answer is 2xx or 409 (a clean refusal), never a 5xx; at least one write went through. */
function expectClean(answers: Answer[], what: string): void {
  const bad = answers.filter((a) => !((a.status >= 200 && a.status < 300) || a.status === 409));
  expect(bad.map((a) => `${a.status} ${a.text}`), what).toEqual([]);
  expect(answers.some((a) => a.status >= 200 && a.status < 300), what).toBe(true);
}

/**
 * The races, each against rows no other scenario touches. `bases` are the instances' URLs: one
 * (both databases) or two (PostgreSQL).
 */
function scenarios(ctx: () => { h: Harness; mcp: McpTestServer; bases: string[] }) {
  const admin = (base: string, method: string, path: string, json?: unknown) => send(base, method, path, { token: ctx().h.adminToken, json });
  const driftOf = (rsId: string, eventType: string) => ctx().h.db.driftEvent.findMany({ where: { rsId, eventType } });

  it("PUT tool-scope-map for one tool: clean answers, the mapping written, one tool_unmapped per real removal", async () => {
    const { h, bases } = ctx();
    const rs = await readyServer(h);
    try {
      const both = ["files:read", "files:write"];
      const map = (scopeIds: string[]) => ({ mappings: [{ tool_name: "read_file", scope_ids: scopeIds }] });
      expect((await admin(h.url, "PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, map(both))).status).toBe(200);
      const tool = await h.db.tool.findFirstOrThrow({ where: { resourceServerId: rs.id, name: "read_file" } });
      let removals = 0;
      for (let round = 0; round < ROUNDS; round++) {
        // Even rounds drop files:write (one real removal), odd rounds add it back (one real insert).
        const desired = round % 2 === 0 ? ["files:read"] : both;
        if (round % 2 === 0) removals++;
        const answers = await parallel(bases, PARALLEL, (base) => admin(base, "PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, map(desired)));
        expectClean(answers, `round ${round}`);
        const rows = await h.db.toolScope.findMany({ where: { toolId: tool.id }, include: { scope: { select: { key: true } } } });
        expect(rows.map((r) => r.scope.key).sort(), `round ${round}`).toEqual(desired);
      }
      const events = await driftOf(rs.id, "tool_unmapped");
      expect(events.map((e) => e.eventPayload)).toEqual(Array.from({ length: removals }, () => ({ tool_name: "read_file", prior_scope_id: "files:write" })));
    } finally {
      await rs.mcp.close();
    }
  });

  it("first PUT access-policy on fresh servers: clean answers, one row holding one of the written bodies", async () => {
    const { h, mcp, bases } = ctx();
    const roleId = await createRole(h, h.workspaceId, `default ${bases.length}`);
    const bodies = [{ enabled: true, default_role_id: roleId }, { enabled: false }];
    for (let s = 0; s < 5; s++) {
      const rs = await register(h, mcp.url);
      const answers = await parallel(bases, PARALLEL, (base, i) => admin(base, "PUT", `/svc/resource-servers/${rs.id}/access-policy`, bodies[i % 2]));
      expectClean(answers, `server ${s}`);
      const rows = await h.db.accessPolicy.findMany({ where: { resourceServerId: rs.id } });
      expect(rows).toHaveLength(1);
      expect(bodies).toContainEqual(rows[0]!.enabled ? { enabled: true, default_role_id: rows[0]!.defaultRoleId } : { enabled: false });
    }
  });

  it("parallel access-policy changes on a ready server record each drift event once", async () => {
    const { h, bases } = ctx();
    const rs = await readyServer(h);
    try {
      const a = await createRole(h, h.workspaceId, `a ${bases.length}`);
      const b = await createRole(h, h.workspaceId, `b ${bases.length}`);
      const put = (base: string, json: unknown) => admin(base, "PUT", `/svc/resource-servers/${rs.id}/access-policy`, json);
      for (let round = 0; round < 3; round++) {
        expect((await put(h.url, { enabled: true, default_role_id: a })).status).toBe(200);
        expectClean(await parallel(bases, PARALLEL, (base) => put(base, { enabled: true, default_role_id: b })), `change ${round}`);
        expectClean(await parallel(bases, PARALLEL, (base) => put(base, { enabled: false })), `disable ${round}`);
      }
      expect(await driftOf(rs.id, "default_role_changed")).toHaveLength(3);
      expect(await driftOf(rs.id, "default_role_disabled")).toHaveLength(3);
    } finally {
      await rs.mcp.close();
    }
  });

  it("parallel sdk-manifest pushes: clean answers, every new tool created and reported exactly once", async () => {
    const { h, mcp, bases } = ctx();
    const manifests = [
      { tools: [{ name: "only_a" }, { name: "shared", description: "from a" }] },
      { tools: [{ name: "only_b" }, { name: "shared", description: "from b" }] },
    ];
    for (let s = 0; s < 3; s++) {
      const rs = await register(h, mcp.url);
      const answers = await parallel(bases, PARALLEL, (base, i) =>
        send(base, "PUT", `/svc/resource-servers/${rs.id}/sdk-manifest`, { basic: [rs.id, rs.secret], json: manifests[i % 2] }),
      );
      expectClean(answers, `server ${s}`);
      const created = answers.flatMap((a) => (a.status === 200 ? (a.body.created_tools as string[]) : []));
      expect(created.sort()).toEqual(["only_a", "only_b", "shared"]);
      const tools = await h.db.tool.findMany({ where: { resourceServerId: rs.id }, orderBy: { name: "asc" } });
      expect(tools.map((t) => [t.name, t.source])).toEqual([["only_a", "manifest"], ["only_b", "manifest"], ["shared", "manifest"]]);
      const record = await h.db.sdkManifest.findUniqueOrThrow({ where: { resourceServerId: rs.id } });
      expect(manifests.map((m) => m.tools.map((t) => t.name))).toContainEqual(record.tools);
    }
  });

  it("parallel scope creation keeps every key in scopes_supported; parallel deletion records one scope_deleted", async () => {
    const { h, bases } = ctx();
    const rs = await readyServer(h);
    try {
      const keys = Array.from({ length: PARALLEL }, (_, i) => `extra:${i}`);
      const created = await parallel(bases, PARALLEL, (base, i) => admin(base, "POST", `/svc/resource-servers/${rs.id}/scopes`, { id: keys[i], name: keys[i] }));
      expect(created.map((a) => a.status)).toEqual(keys.map(() => 201));
      const after = await admin(h.url, "GET", `/svc/resource-servers/${rs.id}`);
      expect([...after.body.scopes_supported].sort()).toEqual(["files:read", "files:write", ...keys].sort());

      const deleted = await parallel(bases, PARALLEL, (base) => admin(base, "DELETE", `/svc/resource-servers/${rs.id}/scopes/files:write`));
      expect(deleted.map((a) => a.status).sort()).toEqual([204, ...Array.from({ length: PARALLEL - 1 }, () => 404)]);
      expect(await driftOf(rs.id, "scope_deleted")).toHaveLength(1);
      expect((await admin(h.url, "GET", `/svc/resource-servers/${rs.id}`)).body.scopes_supported).not.toContain("files:write");
    } finally {
      await rs.mcp.close();
    }
  });

  it("parallel manual tools of one name: one 201, the others 409", async () => {
    const { h, mcp, bases } = ctx();
    const rs = await register(h, mcp.url);
    const answers = await parallel(bases, PARALLEL, (base) => admin(base, "POST", `/svc/resource-servers/${rs.id}/tools`, { name: "by_hand" }));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array.from({ length: PARALLEL - 1 }, () => 409)]);
    expect(await h.db.tool.count({ where: { resourceServerId: rs.id, name: "by_hand" } })).toBe(1);
  });

  // The scan records its tools (read, then create the missing ones) in one transaction; a push of
  // the same names landing between the two used to fail the scan on a unique violation. The window
  // is narrow, so this overlap does not hit it on every run; it checks the outcome when it does.
  it("a rescan racing manifest pushes of the same tool names: clean answers, each tool once, the scan succeeds", async () => {
    const { h, mcp, bases } = ctx();
    for (let s = 0; s < 3; s++) {
      const rs = await register(h, mcp.url);
      const pushes = parallel(bases, PARALLEL, (base) =>
        send(base, "PUT", `/svc/resource-servers/${rs.id}/sdk-manifest`, { basic: [rs.id, rs.secret], json: { tools: SAMPLE_TOOLS.map((t) => ({ name: t.name })) } }),
      );
      const [scan, answers] = await Promise.all([rescan(h, rs.id), pushes]);
      expect(scan.status, scan.text).toBe(200);
      expectClean(answers, `server ${s}`);
      const tools = await h.db.tool.findMany({ where: { resourceServerId: rs.id } });
      expect(tools.map((t) => t.name).sort()).toEqual(SAMPLE_TOOLS.map((t) => t.name).sort());
      expect(tools.every((t) => t.lastSeenGeneration === 1 && !t.stale)).toBe(true);
    }
  });
}

describe("parallel writes through one instance", () => {
  let h: Harness;
  let mcp: McpTestServer;
  beforeAll(async () => {
    h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
    mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
  });
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });
  scenarios(() => ({ h, mcp, bases: [h.url] }));
});

describe.runIf(onPostgres)("parallel writes split across two instances (PostgreSQL)", () => {
  let h: Harness;
  let mcp: McpTestServer;
  let other: Instance;
  beforeAll(async () => {
    h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
    mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
    other = await secondInstance(h);
  });
  afterAll(async () => {
    await other?.close();
    await mcp?.close();
    await h?.close();
  });
  scenarios(() => ({ h, mcp, bases: [h.url, other.url] }));
});
