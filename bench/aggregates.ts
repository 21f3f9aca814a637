// npm run bench -- aggregates — the aggregate access views at scale (issue 22): do the posture
// summary and the tool exposure answer in under a second with 100 000 users, 1000 servers and over
// 100 000 role bindings, and does an evidence export of 100 000 rows stay within bounded memory?
//
// For each database (SQLite, PostgreSQL or both): a fresh database, `toolgate bootstrap`, then the
// scale bench's bulk seed (bench/scale-seed.ts) with its catalog option: N users (memberships,
// end-user states, groups, one direct binding each), 1000 servers with 10 tools each mapped to
// their scope, 100 roles, N/10 clients, plus one "big" server with 500 tools over 50 scopes and 10
// roles bound to 2000 users and 2 groups each, and two export servers whose roles reach 10 000 and
// 1000 users (10 tools each: 100 000 and 10 000 export rows). Toolgate then runs in its own process
// and every figure is taken over real HTTP, requests one after the other (an operator's screen,
// not a load test):
// - posture summary, first page (100 applications) and the workspace roll-up, one response;
// - posture summary, second page (by the first page's next_cursor);
// - tool exposure of the big server (first page: 100 of its 500 tools) and of an ordinary one;
// each AGG_SAMPLES times (default 30) after 3 unmeasured, p50/p95/max. Target: p50 < 1000 ms.
// - evidence export of the 10 000-row and the 100 000-row server: POST .../evidence-exports, then
//   GET of its access.csv (streamed); the server's RSS is sampled every 10 ms through both, and its
//   VmHWM (peak RSS) is reset before each (/proc/<pid>/clear_refs), after a forced full GC. Reported: rows, duration, RSS
//   before, peak RSS, peak minus before. Target: the 100k export's growth over its RSS before is
//   under 3× the 10k export's growth plus 50 MB (it would be about 10× if rows were held).
//
// Options (environment): SCALE_N (default 100000), SCALE_DB sqlite|postgresql|both (default both),
// AGG_SAMPLES (default 30), SCALE_PG_URL (maintenance connection, as bench/scale.ts),
// AGG_PG_PREFIX (name prefix of the PostgreSQL database created for the run, default
// "toolgate_aggregates_"). Writes bench/results/aggregates-<time>.json. Exits 1 when a target is missed.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { adminContext, type BenchContext } from "./scenario";
import { ADMIN, bootstrap, cleanUp, freePort, median, onCleanup, pct, rssAfterGc, startServer, type Server } from "./scale";
import { seedPostgres, seedSqlite, type CatalogSpec, type SeedResult } from "./scale-seed";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVERS = 1000;
const ROLES = 100;
const CATALOG: CatalogSpec = { toolsPerServer: 10, bigTools: 500, bigScopes: 50, bigRoles: 10, bigUsersPerRole: 2000, exportUsers: [10_000, 1000] };
const TARGET_P50_MS = 1000;

type DbKind = "sqlite" | "postgresql";

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number >= 1`);
  return n;
}

async function freshDatabase(kind: DbKind, dir: string): Promise<string> {
  if (kind === "sqlite") return `file:${join(dir, "toolgate.db")}`;
  const maintenance = process.env.SCALE_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
  const prefix = process.env.AGG_PG_PREFIX || "toolgate_aggregates_";
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error("AGG_PG_PREFIX must be a lower-case SQL identifier");
  const name = `${prefix}${randomBytes(6).toString("hex")}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: maintenance });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  onCleanup(() => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const u = new URL(maintenance);
  u.pathname = `/${name}`;
  return u.toString();
}

interface Timing {
  what: string;
  /** Server CPU (user + system) per request, ms: steadier than wall time on a shared machine. */
  cpuMs: number;
  p50: number;
  p95: number;
  max: number;
  samples: number[];
  pass: boolean;
}

async function getJson<T>(ctx: BenchContext, url: string, path: string): Promise<{ ms: number; body: T }> {
  const t0 = performance.now();
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${ctx.adminToken}` } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 500)}`);
  return { ms, body: JSON.parse(text) as T };
}

/** utime + stime of the process, ms (/proc/<pid>/stat fields 14 and 15; USER_HZ 100). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function timeGet(ctx: BenchContext, server: Server, what: string, path: string, samples: number, check: (body: any) => void): Promise<Timing> {
  for (let i = 0; i < 3; i++) check((await getJson(ctx, server.url, path)).body);
  const ms: number[] = [];
  const cpu0 = cpuMs(server.pid);
  for (let i = 0; i < samples; i++) ms.push((await getJson(ctx, server.url, path)).ms);
  const cpu = (cpuMs(server.pid) - cpu0) / samples;
  const p50 = median(ms);
  process.stdout.write(`    ${what}: p50 ${p50.toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms, server CPU ${cpu.toFixed(0)} ms/request\n`);
  return { what, cpuMs: cpu, p50, p95: pct(ms, 95), max: Math.max(...ms), samples: ms, pass: p50 < TARGET_P50_MS };
}

function statusKb(pid: number, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]);
}

interface ExportFigures {
  server: string;
  rows: number;
  csvBytes: number;
  createMs: number;
  downloadMs: number;
  rssBeforeMb: number;
  peakRssMb: number;
  growthMb: number;
}

/** One export and the download of its CSV, with the server's RSS sampled every 10 ms and its VmHWM reset first. */
async function measureExport(ctx: BenchContext, server: Server, appId: string, expectRows: number): Promise<ExportFigures> {
  // A full GC first (through the inspector, as bench/scale.ts does), so "before" is what the process
  // keeps, not the garbage of the previous step; then writing "5" resets the peak RSS (VmHWM) of a
  // process we own (Linux Documentation/filesystems/proc.rst, clear_refs).
  await rssAfterGc(server);
  writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
  const before = statusKb(server.pid, "VmRSS");
  let sampled = before;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, statusKb(server.pid, "VmRSS"));
    } catch {
      /* gone */
    }
  }, 10);
  try {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/svc/v1/applications/${appId}/evidence-exports`, { method: "POST", headers: { authorization: `Bearer ${ctx.adminToken}` } });
    const text = await res.text();
    const createMs = performance.now() - t0;
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST evidence export: ${res.status} ${text.slice(0, 500)}`);
    const view = JSON.parse(text) as { files: { name: string; path: string }[]; manifest: { files: { name: string; rows: number; bytes: number }[] } };
    const csv = view.manifest.files.find((f) => f.name === "access.csv")!;
    if (csv.rows !== expectRows) throw new Error(`evidence export of ${appId}: expected ${expectRows} rows, got ${csv.rows}`);
    const t1 = performance.now();
    const dl = await fetch(server.url + view.files.find((f) => f.name === "access.csv")!.path, { headers: { authorization: `Bearer ${ctx.adminToken}` } });
    if (dl.status !== 200 || !dl.body) throw new Error(`GET access.csv: ${dl.status}`);
    let bytes = 0;
    for await (const chunk of dl.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    const downloadMs = performance.now() - t1;
    if (bytes !== csv.bytes) throw new Error(`access.csv: manifest says ${csv.bytes} bytes, downloaded ${bytes}`);
    const peak = Math.max(sampled, statusKb(server.pid, "VmHWM"));
    const mb = (kb: number) => kb / 1024;
    return { server: appId, rows: csv.rows, csvBytes: bytes, createMs, downloadMs, rssBeforeMb: mb(before), peakRssMb: mb(peak), growthMb: mb(peak - before) };
  } finally {
    clearInterval(timer);
  }
}

interface DbResult {
  database: DbKind;
  seed: { ms: number; counts: Record<string, number> };
  timings: Timing[];
  exports: ExportFigures[];
  exportPass: boolean;
}

async function runDatabase(kind: DbKind, n: number, samples: number): Promise<DbResult> {
  console.log(`\n== ${kind}: N=${n} users, ${SERVERS} servers`);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-aggregates-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const dbUrl = await freshDatabase(kind, dir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl,
    TOOLGATE_DATA_DIR: dir,
    TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex"),
    TOOLGATE_LOG_LEVEL: "warn",
    NODE_ENV: "production",
  };
  for (const v of ["TOOLGATE_ADMIN_EMAIL", "TOOLGATE_ADMIN_PASSWORD", "TOOLGATE_BENCH_ROUTES", "PORT", "HOST", "TOOLGATE_PUBLIC_URL", "TOOLGATE_WORKERS"]) delete env[v];
  const ids = await bootstrap(env);
  const spec = { workspaceId: ids.workspace_id, adminUserId: ids.user_id, users: n, full: true, servers: SERVERS, roles: ROLES, catalog: CATALOG };
  const seed: SeedResult = kind === "sqlite" ? seedSqlite(join(dir, "toolgate.db"), spec) : await seedPostgres(dbUrl, spec);
  const bindings = seed.counts.RoleBinding ?? 0;
  process.stdout.write(`  seeded ${seed.rows} rows in ${(seed.ms / 1000).toFixed(1)} s (${Object.entries(seed.counts).map(([t, c]) => `${t} ${c}`).join(", ")})\n`);
  const port = await freePort();
  env.TOOLGATE_PUBLIC_URL = `http://127.0.0.1:${port}`;
  const server = await startServer(env, port);
  const ctx = await adminContext(ADMIN, server.url);
  const ws = ids.workspace_id;
  const big = seed.sample.bigServerId!;
  const [exportBig, exportSmall] = seed.sample.exportServerIds!;
  const ordinary = seed.sample.serverId === big ? exportSmall : seed.sample.serverId!;

  console.log(`  timings: ${samples} sequential GETs each after 3 unmeasured (${bindings} role bindings)`);
  const posturePath = `/svc/v1/workspaces/${ws}/applications/posture-summary`;
  const first = await getJson<{ next_cursor: string | null; count: number; workspace: { applications: number; users_with_access: number; tools: { total: number } } }>(ctx, server.url, posturePath);
  if (first.body.count !== 100 || first.body.workspace.applications < SERVERS || !first.body.next_cursor)
    throw new Error(`posture summary: unexpected first page ${JSON.stringify({ count: first.body.count, workspace: first.body.workspace })}`);
  const timings: Timing[] = [];
  timings.push(
    await timeGet(ctx, server, "posture summary, first page + roll-up", posturePath, samples, (b) => {
      if (b.workspace.users_with_access < n / 2) throw new Error(`posture roll-up: users_with_access ${b.workspace.users_with_access} for N=${n}`);
    }),
  );
  timings.push(await timeGet(ctx, server, "posture summary, second page + roll-up", `${posturePath}?cursor=${encodeURIComponent(first.body.next_cursor!)}`, samples, (b) => {
    if (b.count !== 100) throw new Error(`posture summary page 2: ${b.count} items`);
  }));
  timings.push(
    await timeGet(ctx, server, `tool exposure, big server (${CATALOG.bigTools} tools), first page`, `/svc/v1/applications/${big}/tool-exposure`, samples, (b) => {
      if (b.count !== 100 || !b.items.some((t: { users: number }) => t.users > 1000)) throw new Error(`tool exposure: unexpected answer ${JSON.stringify(b.items.slice(0, 2))}`);
    }),
  );
  timings.push(
    await timeGet(ctx, server, `tool exposure, ordinary server (${CATALOG.toolsPerServer} tools)`, `/svc/v1/applications/${ordinary}/tool-exposure`, samples, (b) => {
      if (b.count !== CATALOG.toolsPerServer) throw new Error(`tool exposure (ordinary): ${b.count} items`);
    }),
  );

  console.log("  evidence exports (create + download of access.csv)");
  const exports: ExportFigures[] = [];
  for (const [id, users] of [[exportSmall, CATALOG.exportUsers[1]], [exportBig, CATALOG.exportUsers[0]]] as const) {
    const e = await measureExport(ctx, server, id, users * CATALOG.toolsPerServer);
    process.stdout.write(
      `    ${e.rows} rows: create ${(e.createMs / 1000).toFixed(2)} s, download ${(e.downloadMs / 1000).toFixed(2)} s (${(e.csvBytes / 2 ** 20).toFixed(1)} MB); RSS before ${e.rssBeforeMb.toFixed(0)} MB, peak ${e.peakRssMb.toFixed(0)} MB (+${e.growthMb.toFixed(0)})\n`,
    );
    exports.push(e);
  }
  const [small, large] = exports as [ExportFigures, ExportFigures];
  const exportPass = large.growthMb < 3 * small.growthMb + 50;
  await server.stop();
  return { database: kind, seed: { ms: seed.ms, counts: seed.counts }, timings, exports, exportPass };
}

function printResult(r: DbResult, n: number): void {
  console.log(`\n${r.database}, N=${n}: ${r.seed.counts.RoleBinding} role bindings, ${r.seed.counts.Tool} tools`);
  const rows = [
    ["view", "p50 ms", "p95 ms", "max ms", "CPU ms/req", "target", "result"],
    ...r.timings.map((t) => [t.what, t.p50.toFixed(1), t.p95.toFixed(1), t.max.toFixed(1), t.cpuMs.toFixed(0), `p50 < ${TARGET_P50_MS}`, t.pass ? "pass" : "FAIL"]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const [k, row] of rows.entries()) {
    console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
    if (k === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  for (const e of r.exports)
    console.log(`evidence export ${e.rows} rows: create ${e.createMs.toFixed(0)} ms, download ${e.downloadMs.toFixed(0)} ms, RSS ${e.rssBeforeMb.toFixed(0)} -> peak ${e.peakRssMb.toFixed(0)} MB (+${e.growthMb.toFixed(0)})`);
  console.log(`export memory bounded (100k growth < 3 × 10k growth + 50 MB): ${r.exportPass ? "pass" : "FAIL"}`);
}

export async function runAggregates(): Promise<void> {
  const n = envInt("SCALE_N", 100_000);
  const samples = envInt("AGG_SAMPLES", 30);
  const dbRaw = (process.env.SCALE_DB ?? "both").toLowerCase();
  const dbs: DbKind[] = dbRaw === "both" ? ["sqlite", "postgresql"] : dbRaw === "sqlite" ? ["sqlite"] : dbRaw === "postgresql" || dbRaw === "pg" ? ["postgresql"] : [];
  if (dbs.length === 0) throw new Error("SCALE_DB must be sqlite, postgresql or both");
  if (n < Math.max(CATALOG.exportUsers[0], CATALOG.bigRoles * CATALOG.bigUsersPerRole)) throw new Error(`SCALE_N must be at least ${CATALOG.exportUsers[0]}`);
  const onSignal = () => void cleanUp().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const started = new Date();
  console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  console.log(`Toolgate aggregates bench: N=${n}, ${dbs.join(" + ")}, ${samples} samples, node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? "cpu"}`);
  const results: DbResult[] = [];
  let failed = false;
  try {
    for (const kind of dbs) {
      try {
        results.push(await runDatabase(kind, n, samples));
      } finally {
        await cleanUp();
      }
    }
  } catch (e) {
    failed = true;
    console.error(`\naggregates bench failed: ${e instanceof Error ? (e.stack ?? e.message) : e}`);
  }
  for (const r of results) printResult(r, n);
  console.log(`\nload average after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  const pass = !failed && results.every((r) => r.exportPass && r.timings.every((t) => t.pass));
  const out = join(ROOT, "bench/results");
  mkdirSync(out, { recursive: true });
  const file = join(out, `aggregates-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify({ started: started.toISOString(), n, samples, catalog: CATALOG, pass, results }, null, 2) + "\n");
  console.log(`\nresults: ${file}\naggregates bench ${pass ? "passed" : "FAILED"} in ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`);
  process.exitCode = pass ? 0 : 1;
}
