// npm run bench — throughput of the hot paths, as ratios of a baseline measured in the same run.
//
// 1. Starts Toolgate as its own process (`node tsx src/main.ts`) on a fresh embedded SQLite
//    database in a temporary data folder, with the bench-only baseline route switched on
//    (TOOLGATE_BENCH_ROUTES=1) and warn-level logs. Load generator and server never share an
//    event loop; on a 2-core machine each gets a core.
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
//
// Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS
// (default 50), BENCH_SLICE (s, default 2). Figures move ±20% between runs on a shared machine:
// compare ratios, not req/s.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { adminContext, type AutocannonRequest, type BenchContext, type Scenario } from "./scenario";

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
  stop(): Promise<void>;
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
    TOOLGATE_LOG_LEVEL: "warn",
    TOOLGATE_BENCH_ROUTES: "1",
    // The sdk-policy scenario scans an MCP server it starts on loopback.
    TOOLGATE_SCAN_ALLOW_PRIVATE: "1",
    NODE_ENV: "production",
  };
  // A fresh embedded database, whatever the caller's shell points at.
  for (const name of ["DATABASE_URL", "TOOLGATE_PUBLIC_URL", "TOOLGATE_MASTER_KEY"]) delete env[name];
  const child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
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
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child, stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`server did not become healthy in time:\n${output}`);
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
  return [...baseline, ...scenarios.filter((s) => s.name !== "baseline")];
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
  const r = await autocannon({ url: (req.origin ?? url) + req.path, method: req.method, headers: req.headers, body: req.body, connections: req.connections ?? CONNECTIONS, duration });
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
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
    return (ticks * 1e6) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
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

async function main(): Promise<void> {
  const scenarios = await loadScenarios();
  console.log(
    `Toolgate bench: ${scenarios.length} scenarios, ${CONNECTIONS} connections, ${DURATION} s each in ${ROUNDS} interleaved slices (+${WARMUP} s warm-up), node ${process.version}`,
  );
  const server = await startServer();
  const rows: Measured[] = [];
  try {
    const ctx = await adminContext(ADMIN, server.url);
    const pid = serverProgramPid(server.child.pid);
    const requests: AutocannonRequest[] = [];
    for (const s of scenarios) requests.push(await s.setup(ctx));
    for (const [i, s] of scenarios.entries()) {
      const req = requests[i]!;
      // One request by hand first: a scenario that does not answer 2xx is a bug, not a figure.
      const probe = await fetch((req.origin ?? server.url) + req.path, { method: req.method, headers: req.headers, body: req.body });
      if (!probe.ok) throw new Error(`${s.name}: ${req.method} ${req.path} answered ${probe.status} ${await probe.text()}`);
      await measure(server.url, req, WARMUP); // JIT warm-up, not measured
    }
    const slices: Slice[][] = scenarios.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      // A scenario that loads another server (origin) samples that server's CPU, not Toolgate's.
      for (const [i] of scenarios.entries()) slices[i]!.push(await measure(server.url, requests[i]!, SLICE_S, requests[i]!.origin ? serverProgramPid(requests[i]!.originPid) : pid));
      process.stdout.write(`  round ${round + 1}/${ROUNDS}: ${scenarios.map((s, i) => `${s.name} ${slices[i]![round]!.rps.toFixed(0)}`).join(", ")} req/s\n`);
    }
    for (const [i, s] of scenarios.entries()) {
      const mine = slices[i]!;
      const sum = (f: (x: Slice) => number) => mine.reduce((a, x) => a + f(x), 0);
      rows.push({
        name: s.name,
        rps: sum((x) => x.total) / sum((x) => x.seconds),
        p50: median(mine.map((x) => x.p50)),
        p99: median(mine.map((x) => x.p99)),
        ratio: median(mine.map((x, round) => x.rps / slices[0]![round]!.rps)),
        cpuPerReq: mine.every((x) => x.cpuUs !== undefined) ? sum((x) => x.cpuUs!) / sum((x) => x.total) : undefined,
        non2xx: sum((x) => x.non2xx),
        errors: sum((x) => x.errors),
        target: s.target,
      });
    }
    const rss = serverRssMb(pid);
    console.log("");
    let ok = printTable(rows);
    ok = printOverheads(scenarios, slices) && ok;
    if (rss !== undefined) console.log(`\nserver RSS after the run: ${rss} MB`);
    console.log("ratio: median per-round req/s ratio to the baseline (the target applies to it); cpu ratio: baseline CPU/request ÷ this CPU/request");
    process.exitCode = ok ? 0 : 1;
  } finally {
    for (const s of scenarios) await s.teardown?.().catch(() => undefined);
    await server.stop();
  }
}

/** Scenarios measured against another one of the same run (overheadOf): median per-round p50 ratio. */
function printOverheads(scenarios: Scenario[], slices: Slice[][]): boolean {
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

// `npm run bench -- scale [options]`: the scale benchmark (bench/scale.ts); anything else as above.
const run = process.argv[2] === "scale" ? import("./scale").then((m) => m.runScale(process.argv.slice(3))) : main();
run.catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
