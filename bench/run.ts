// npm run bench — throughput of the hot paths, as ratios of a baseline measured in the same run.
//
// 1. Starts Toolgate as its own process (`node tsx src/main.ts`) on a fresh embedded SQLite
//    database in a temporary data folder, with the bench-only baseline route switched on
//    (TOOLGATE_BENCH_ROUTES=1) and request logs at `info` as deployed (to a file). Load generator
//    and server never share an event loop; on a 2-core machine each gets a core.
//    Next to it, the peer: node-oidc-provider (bench/peer.ts) in its own process. Scenarios that
//    name a peer request (token, introspection) are measured against it in the same rounds.
// 2. Logs in as the bootstrapped owner and lets every scenario in bench/scenarios/*.ts (found at
//    run time, so adding a scenario is adding a file) create what it needs through the public API.
// 3. Runs each scenario with autocannon — 50 connections, BENCH_DURATION seconds (default 10)
//    each, after a short unmeasured warm-up — and prints req/s, p50, p99, the ratio to the
//    baseline, the target and pass/fail. Exits 1 when a target is missed or a scenario answered
//    anything but 2xx.
//
// Interleaving: each scenario's time is cut into slices of about 2 s, run round-robin (baseline,
// scenario A, scenario B, baseline, ...). Whatever else the machine does then hits every scenario
// alike, and the ratio of a round compares figures taken seconds apart. Reported: req/s over all
// slices, the median of the per-slice p50 and p99 latencies, and the median per-round ratio.
// A peer's slice follows its scenario's in every round; the `vs node-oidc-provider` table's ratio
// is the median per-round Toolgate/peer req/s ratio, and the load average is printed before and
// after (the machine is shared).
//
// Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS
// (default 50), BENCH_SLICE (s, default 2), BENCH_LOG_LEVEL (Toolgate's, default info),
// BENCH_PEER=0 (skip node-oidc-provider), BENCH_CPU_PROF=<dir> (Toolgate's CPU profile),
// BENCH_DATABASE_URL (a PostgreSQL server: a fresh database on it instead of SQLite) with
// BENCH_WORKERS (TOOLGATE_WORKERS, default 1), BENCH_ONLY (a comma-separated list of scenario-name
// substrings; the baseline always runs). Figures move ±20% between runs on a shared machine:
// compare ratios, not req/s.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { adminContext, type AutocannonRequest, type Scenario } from "./scenario";
import { PEER_SCRIPT, peerSecrets, type PeerContext } from "./peer";
import { createPostgresDatabase } from "../test/helpers/database";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SCENARIO_DIR = join(ROOT, "bench", "scenarios");
const ADMIN = { email: "bench-owner@example.test", password: "bench password, not a secret" };

const numberFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};
const DURATION = numberFromEnv("BENCH_DURATION", 10);
const WARMUP = numberFromEnv("BENCH_WARMUP", 2);
const CONNECTIONS = numberFromEnv("BENCH_CONNECTIONS", 50);
const SLICE = numberFromEnv("BENCH_SLICE", 2);
const ROUNDS = Math.max(1, Math.round(DURATION / SLICE));
const SLICE_S = DURATION / ROUNDS;

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

interface RunningServer {
  url: string;
  child: ChildProcess;
  /** The program's pid (tsx's CLI runs it in a child process), for its CPU time; undefined off Linux. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Runs `script` through tsx in its own process and waits until `readyPath` answers 2xx. Its
 * output goes to a file in `dataDir` (as a deployment's log collector would take it), not through
 * the bench's own process, which drives the load; the file's tail is shown if it fails to start.
 */
async function startProcess(script: string, env: NodeJS.ProcessEnv, port: number, readyPath: string, dataDir: string, nodeFlags: string[] = []): Promise<RunningServer> {
  const logFile = join(dataDir, "output.log");
  const out = openSync(logFile, "w");
  const child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), ...nodeFlags, join(ROOT, script)], { cwd: ROOT, env, stdio: ["ignore", out, out] });
  closeSync(out);
  const output = () => readFileSync(logFile, "utf8").slice(-4000);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 12_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(url + readyPath)).ok) return { url, child, pid: serverProgramPid(child.pid), stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`${script} did not become ready in time:\n${output()}`);
}

/**
 * BENCH_DATABASE_URL=postgresql://…/anything: Toolgate runs on a fresh database created on that
 * server for the run (dropped afterwards), with BENCH_WORKERS worker processes (TOOLGATE_WORKERS).
 */
async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const server = process.env.BENCH_DATABASE_URL;
  return server ? createPostgresDatabase(server, "toolgate_bench") : undefined;
}

async function startServer(): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_ADMIN_EMAIL: ADMIN.email,
    TOOLGATE_ADMIN_PASSWORD: ADMIN.password,
    // As deployed: one log line per request (issue 13 measures with logs on).
    TOOLGATE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
    TOOLGATE_BENCH_ROUTES: "1",
    // The sdk-policy scenario scans an MCP server it starts on loopback.
    TOOLGATE_SCAN_ALLOW_PRIVATE: "1",
    NODE_ENV: "production",
  };
  // A fresh embedded database, whatever the caller's shell points at.
  for (const name of ["DATABASE_URL", "TOOLGATE_PUBLIC_URL", "TOOLGATE_MASTER_KEY", "TOOLGATE_WORKERS"]) delete env[name];
  const postgres = await freshPostgres();
  if (postgres) {
    env.DATABASE_URL = postgres.url;
    env.TOOLGATE_MASTER_KEY = randomBytes(32).toString("hex");
    env.TOOLGATE_WORKERS = process.env.BENCH_WORKERS ?? "1";
  }
  // BENCH_CPU_PROF=<dir>: Toolgate writes a V8 CPU profile there when it stops (node --cpu-prof;
  // tsx hands node's flags to the program's process).
  const prof = process.env.BENCH_CPU_PROF;
  const running = await startProcess("src/main.ts", env, port, "/healthz", dataDir, prof ? ["--cpu-prof", `--cpu-prof-dir=${resolve(prof)}`] : []).catch(async (e) => {
    await postgres?.drop();
    throw e;
  });
  return postgres ? { ...running, stop: () => running.stop().then(() => postgres.drop()) } : running;
}

async function startPeer(): Promise<RunningServer & { ctx: PeerContext }> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolgate-bench-peer-"));
  const port = await freePort();
  const secrets = peerSecrets();
  const env: NodeJS.ProcessEnv = { ...process.env, PEER_PORT: String(port), PEER_CLIENT_SECRET: secrets.clientSecret, PEER_RS_SECRET: secrets.rsSecret, NODE_ENV: "production" };
  const running = await startProcess(PEER_SCRIPT, env, port, "/.well-known/openid-configuration", dataDir);
  return { ...running, ctx: { url: running.url, ...secrets } };
}

/** Every bench/scenarios/*.ts file's default export, the baseline first, the rest by file name. */
async function loadScenarios(): Promise<Scenario[]> {
  const files = readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(SCENARIO_DIR, file)).href)) as { default?: Scenario };
    const s = mod.default;
    if (!s || typeof s.name !== "string" || typeof s.setup !== "function") throw new Error(`bench/scenarios/${file} must export a default Scenario`);
    scenarios.push(s);
  }
  const baseline = scenarios.filter((s) => s.name === "baseline");
  if (baseline.length !== 1) throw new Error('exactly one scenario must be named "baseline"');
  const only = process.env.BENCH_ONLY?.split(",").filter(Boolean);
  const chosen = (s: Scenario) => s.name !== "baseline" && (!only || only.some((o) => s.name.includes(o)));
  return [...baseline, ...scenarios.filter(chosen)];
}

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Median over rounds of (this scenario's req/s / the baseline's req/s in the same round). */
  ratio: number;
  /** Server CPU µs per request over all slices (undefined off Linux). */
  cpuPerReq?: number;
  non2xx: number;
  errors: number;
  target?: number;
}

interface Slice {
  /** Server CPU time (user + system, all threads) spent in the slice, in µs; undefined off Linux. */
  cpuUs?: number;
  total: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function measure(url: string, req: AutocannonRequest, duration: number, serverPid?: number): Promise<Slice> {
  const cpu0 = serverCpuUs(serverPid);
  const r = await autocannon({ url: (req.origin ?? url) + req.path, method: req.method, headers: req.headers, body: req.body, requests: req.requests, connections: req.connections ?? CONNECTIONS, duration });
  const cpu1 = serverCpuUs(serverPid);
  return {
    cpuUs: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined,
    total: r.requests.total,
    seconds: duration,
    rps: r.requests.total / duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** The pid of the server program: tsx's CLI runs it in a child process, so follow that. */
function serverProgramPid(cliPid: number | undefined): number | undefined {
  try {
    const children = readFileSync(`/proc/${cliPid}/task/${cliPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : cliPid;
  } catch {
    return undefined; // not Linux
  }
}

/**
 * CPU time the server consumed so far (utime + stime of all its threads, /proc/<pid>/stat). CPU
 * per request is much steadier than req/s on a shared machine: other processes slow the server
 * down but do not make each request cost more, so it is printed next to req/s as a cross-check.
 */
function serverCpuUs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let ticks = 0;
    // The program and its descendants (TOOLGATE_WORKERS: the cluster's workers are its children).
    for (const p of processTree(pid)) {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
    }
    return (ticks * 1e6) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    /* gone */
  }
  return [pid, ...children.flatMap(processTree)];
}
/** USER_HZ: 100 on every mainstream Linux. */
const CLOCK_TICKS_PER_S = 100;

function serverRssMb(pid: number | undefined): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined; // not Linux
  }
}

function printTable(rows: Measured[]): boolean {
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "ratio", "target", "result", "cpu µs/req", "cpu ratio"];
  const baseCpu = rows[0]!.cpuPerReq;
  let allPass = true;
  const lines = rows.map((r) => {
    const ratio = r.ratio;
    const clean = r.non2xx === 0 && r.errors === 0;
    const pass = clean && (r.target === undefined || ratio >= r.target);
    allPass &&= pass;
    const result = !clean ? `FAIL (${r.non2xx} non-2xx, ${r.errors} errors)` : r.target === undefined ? "-" : pass ? "pass" : "FAIL";
    const cpu = r.cpuPerReq === undefined ? "-" : r.cpuPerReq.toFixed(0);
    const cpuRatio = r.cpuPerReq === undefined || baseCpu === undefined ? "-" : (baseCpu / r.cpuPerReq).toFixed(2);
    return [r.name, r.rps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), ratio.toFixed(2), r.target === undefined ? "-" : `>= ${r.target.toFixed(2)}`, result, cpu, cpuRatio];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(fmt(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of lines) console.log(fmt(l));
  return allPass;
}

/** Folds a scenario's slices into its row; `base` gives each round's reference req/s for the ratio. */
function summarize(name: string, mine: Slice[], base: Slice[], target?: number): Measured {
  const sum = (f: (x: Slice) => number) => mine.reduce((a, x) => a + f(x), 0);
  return {
    name,
    rps: sum((x) => x.total) / sum((x) => x.seconds),
    p50: median(mine.map((x) => x.p50)),
    p99: median(mine.map((x) => x.p99)),
    ratio: median(mine.map((x, round) => x.rps / base[round]!.rps)),
    cpuPerReq: mine.every((x) => x.cpuUs !== undefined) ? sum((x) => x.cpuUs!) / sum((x) => x.total) : undefined,
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors),
    target,
  };
}

/**
 * Toolgate against node-oidc-provider, scenario by scenario, from the same rounds: each side's
 * req/s, p50, p99 and CPU per request, the median per-round req/s ratio, and pass when the ratio
 * meets the target and Toolgate's p99 is no worse than the peer's.
 */
function printPeerTable(pairs: { ours: Measured; peer: Measured; target: number }[]): boolean {
  const header = ["scenario", "toolgate req/s", "p50", "p99", "cpu µs", "peer", "peer req/s", "p50", "p99", "cpu µs", "ratio", "target", "result", "cpu ratio"];
  let allPass = true;
  const cpu = (m: Measured) => (m.cpuPerReq === undefined ? "-" : m.cpuPerReq.toFixed(0));
  const lines = pairs.map(({ ours, peer, target }) => {
    const clean = ours.non2xx + ours.errors + peer.non2xx + peer.errors === 0;
    const pass = clean && ours.ratio >= target && ours.p99 <= peer.p99;
    allPass &&= pass;
    const result = !clean ? "FAIL (non-2xx or errors)" : pass ? "pass" : ours.ratio < target ? "FAIL (ratio)" : "FAIL (p99)";
    const cpuRatio = ours.cpuPerReq === undefined || peer.cpuPerReq === undefined ? "-" : (peer.cpuPerReq / ours.cpuPerReq).toFixed(2);
    return [ours.name, ours.rps.toFixed(0), ours.p50.toFixed(1), ours.p99.toFixed(1), cpu(ours), peer.name, peer.rps.toFixed(0), peer.p50.toFixed(1), peer.p99.toFixed(1), cpu(peer), ours.ratio.toFixed(2), `>= ${target.toFixed(2)}`, result, cpuRatio];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(fmt(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of lines) console.log(fmt(l));
  return allPass;
}

/** The machine's load average and CPU count, printed with the figures (the machine is shared). */
function machineLoad(): string {
  const [one, five] = loadavg();
  return `load average ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min) on ${cpus().length} CPUs`;
}

async function main(): Promise<void> {
  const scenarios = await loadScenarios();
  const withPeer = process.env.BENCH_PEER !== "0" && scenarios.some((s) => s.peer);
  console.log(
    `Toolgate bench: ${scenarios.length} scenarios${withPeer ? " (+ node-oidc-provider peers)" : ""}, ${CONNECTIONS} connections, ${DURATION} s each in ${ROUNDS} interleaved slices (+${WARMUP} s warm-up), node ${process.version}, Toolgate logs at ${process.env.BENCH_LOG_LEVEL ?? "info"}, database ${process.env.BENCH_DATABASE_URL ? `PostgreSQL, ${process.env.BENCH_WORKERS ?? "1"} worker(s)` : "SQLite"}`,
  );
  console.log(`before: ${machineLoad()}`);
  const server = await startServer();
  const peer = withPeer ? await startPeer().catch(async (e) => (await server.stop(), Promise.reject(e))) : undefined;
  const rows: Measured[] = [];
  try {
    const ctx = await adminContext(ADMIN, server.url);
    const pid = server.pid;
    // What is measured, in round order: each scenario, followed by its peer when it has one.
    const jobs: { name: string; url: string; pid?: number; req: AutocannonRequest; scenario: number; peerOf?: number }[] = [];
    for (const [i, s] of scenarios.entries()) {
      const req = await s.setup(ctx);
      // A scenario that loads another server (origin) samples that server's CPU, not Toolgate's.
      jobs.push({ name: s.name, url: server.url, pid: req.origin ? serverProgramPid(req.originPid) : pid, req, scenario: i });
      if (peer && s.peer) jobs.push({ name: s.peer.name, url: peer.url, pid: peer.pid, req: await s.peer.setup(peer.ctx), scenario: i, peerOf: jobs.length - 1 });
    }
    for (const job of jobs) {
      const req = job.req;
      // One request by hand first: a scenario that does not answer 2xx is a bug, not a figure.
      const probe = await fetch((req.origin ?? job.url) + req.path, { method: req.method, headers: req.headers, body: req.body });
      if (!probe.ok) throw new Error(`${job.name}: ${req.method} ${req.path} answered ${probe.status} ${await probe.text()}`);
      await measure(job.url, req, WARMUP); // JIT warm-up, not measured
    }
    const slices: Slice[][] = jobs.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [j, job] of jobs.entries()) slices[j]!.push(await measure(job.url, job.req, SLICE_S, job.pid));
      process.stdout.write(`  round ${round + 1}/${ROUNDS}: ${jobs.map((job, j) => `${job.name} ${slices[j]![round]!.rps.toFixed(0)}`).join(", ")} req/s\n`);
    }
    for (const [j, job] of jobs.entries()) if (job.peerOf === undefined) rows.push(summarize(job.name, slices[j]!, slices[0]!, scenarios[job.scenario]!.target));
    const pairs = jobs.flatMap((job, j) => {
      if (job.peerOf === undefined) return [];
      const ours = slices[job.peerOf]!;
      const theirs = slices[j]!;
      return [{ ours: summarize(jobs[job.peerOf]!.name, ours, theirs), peer: summarize(job.name, theirs, theirs), target: scenarios[job.scenario]!.peer!.target }];
    });
    const rss = serverRssMb(pid);
    console.log("");
    let ok = printTable(rows);
    ok = printOverheads(scenarios, jobs, slices) && ok;
    if (rss !== undefined) console.log(`\nserver RSS after the run: ${rss} MB`);
    console.log("ratio: median per-round req/s ratio to the baseline (the target applies to it); cpu ratio: baseline CPU/request ÷ this CPU/request");
    if (pairs.length > 0) {
      console.log("\nvs node-oidc-provider (same rounds; ratio: median per-round Toolgate req/s ÷ peer req/s; pass also needs Toolgate's p99 <= the peer's;");
      console.log("cpu ratio: peer CPU/request ÷ Toolgate CPU/request, the steadier figure on a loaded machine)");
      ok = printPeerTable(pairs) && ok;
    }
    console.log(`\nafter: ${machineLoad()}`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    for (const s of scenarios) await s.teardown?.().catch(() => undefined);
    await server.stop();
    await peer?.stop();
  }
}

/** Scenarios measured against another one of the same run (overheadOf): median per-round p50 ratio. */
function printOverheads(scenarios: Scenario[], jobs: { scenario: number; peerOf?: number }[], jobSlices: Slice[][]): boolean {
  // The slices of each scenario's own job (not its peer's).
  const slices = scenarios.map((_, i) => jobSlices[jobs.findIndex((job) => job.scenario === i && job.peerOf === undefined)]!);
  let ok = true;
  for (const [i, s] of scenarios.entries()) {
    if (!s.overheadOf) continue;
    const j = scenarios.findIndex((x) => x.name === s.overheadOf!.scenario);
    if (j < 0) throw new Error(`${s.name}: overheadOf names no scenario ${s.overheadOf.scenario}`);
    const ratio = median(slices[i]!.map((x, round) => x.p50 / slices[j]![round]!.p50));
    const pass = ratio <= s.overheadOf.maxP50Ratio;
    ok &&= pass;
    const cpu = (k: number) => slices[k]!.every((x) => x.cpuUs !== undefined) ? slices[k]!.reduce((a, x) => a + x.cpuUs!, 0) / slices[k]!.reduce((a, x) => a + x.total, 0) : undefined;
    const [mine, theirs] = [cpu(i), cpu(j)];
    const cpuText = mine !== undefined && theirs !== undefined ? `; CPU per call ${mine.toFixed(0)} vs ${theirs.toFixed(0)} µs (ratio ${(mine / theirs).toFixed(2)})` : "";
    console.log(`\n${s.name} vs ${s.overheadOf.scenario}: p50 ratio ${ratio.toFixed(2)} (target <= ${s.overheadOf.maxP50Ratio.toFixed(2)}): ${pass ? "pass" : "FAIL"}${cpuText}`);
  }
  return ok;
}

// `npm run bench -- scale [options]`: the scale benchmark (bench/scale.ts); `npm run bench --
// aggregates`: the aggregate views and evidence exports at scale (bench/aggregates.ts); `npm run bench --
// latency`: single-request answer times (bench/latency.ts); `npm run bench -- compare --with <dir>`:
// this checkout against another in one run (bench/compare.ts); anything else as above.
const run =
  process.argv[2] === "scale"
    ? import("./scale").then((m) => m.runScale(process.argv.slice(3)))
    : process.argv[2] === "aggregates"
      ? import("./aggregates").then((m) => m.runAggregates())
    : process.argv[2] === "latency"
      ? import("./latency").then((m) => m.runLatency())
      : process.argv[2] === "compare"
        ? import("./compare").then((m) => m.runCompare(process.argv.slice(3)))
        : main();
run.catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
