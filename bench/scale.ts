// npm run bench -- scale — does the cost of the hot paths and of writes stay flat as the
// installation grows? For each database (SQLite, PostgreSQL or both) two installations are
// measured side by side in ONE run:
//   empty: the bench's own fixtures only (plus the few hundred users the write loops touch);
//   N:     N users (default 100 000) with memberships, end-user states, groups and role bindings,
//          N/10 clients and 1000 resource servers, seeded with raw SQL (bench/scale-seed.ts).
// Each installation is a fresh database (SQLite: a file in a temp dir; PostgreSQL: CREATE DATABASE
// toolgate_scale_<random>) with the schema and the owner written by `toolgate bootstrap`, then
// seeded, then served by Toolgate in its own process (`tsx src/main.ts`). What is measured is
// created through the HTTP API as bench/run.ts's scenarios do: a resource server with a known
// introspection secret, an m2m client (machine token, client credentials) and a user who signs in
// (user token, authorization code + PKCE).
//
// Measured per installation: seed time, start-up to ready (spawn -> /readyz 200), server RSS
// after start, after load and after load + a forced full GC (through the inspector), p50/p99 of ~200 sequential role-binding creations and ~200
// membership status changes, introspection throughput of a user and a machine token (autocannon,
// 50 connections), and on PostgreSQL the propagation delay of a change made on instance A to the
// introspection answers of a second instance B on the same database. Writes and load alternate
// between the two installations (one write each, then the next; autocannon slices round-robin),
// so whatever else the machine does hits both alike and the ratios compare like with like.
//
// Options (argv or environment):
//   --n N | SCALE_N                 users of the large installation (default 100000)
//   --db sqlite|postgresql|both | SCALE_DB  (default both)
//   --quick | SCALE_QUICK=1         smoke run: N=2000 unless given, 50 writes, 4 s of load, 20 propagations
//   SCALE_DURATION (s, default 10)  measured load per token kind and installation, in ~1.25 s slices
//   SCALE_WRITES (default 200)      measured writes of each kind
//   SCALE_PROPAGATIONS (default 100) propagation samples of each kind (PostgreSQL)
//   SCALE_CONNECTIONS (default 50)
//   SCALE_PG_URL (default postgresql://postgres@127.0.0.1:5432/postgres) maintenance connection
// Prints one table per database and writes bench/results/scale-<time>.json. Exits 1 when a target
// is missed or anything answered wrongly.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { adminContext, type AutocannonRequest, type BenchContext } from "./scenario";
import { createClient, createServer, getToken, introspectionRequest } from "./oauth-fixtures";
import { userToken } from "./signin-fixtures";
import { seedPostgres, seedSqlite, type SeedResult } from "./scale-seed";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");
export const ADMIN = { email: "scale-owner@example.test", password: "scale bench password, not a secret" };
const WARM_WRITES = 20;
const SERVERS = 1000;
const ROLES = 100;
const PROPAGATION_GIVE_UP_MS = 2000;

type DbKind = "sqlite" | "postgresql";

interface Options {
  n: number;
  dbs: DbKind[];
  quick: boolean;
  duration: number;
  warmup: number;
  slice: number;
  writes: number;
  propagations: number;
  connections: number;
  pgUrl: string;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: { n: { type: "string" }, db: { type: "string" }, quick: { type: "boolean" } },
    allowPositionals: false,
  });
  const env = process.env;
  const quick = values.quick === true || env.SCALE_QUICK === "1" || env.SCALE_QUICK === "true";
  const num = (raw: string | undefined, fallback: number, name: string, min = 1): number => {
    const n = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number >= ${min}`);
    return n;
  };
  const n = num(values.n ?? env.SCALE_N, quick ? 2000 : 100_000, "N (--n, SCALE_N)", 100);
  const dbRaw = (values.db ?? env.SCALE_DB ?? "both").toLowerCase();
  const dbs: DbKind[] =
    dbRaw === "both" ? ["sqlite", "postgresql"] : dbRaw === "sqlite" ? ["sqlite"] : dbRaw === "postgresql" || dbRaw === "pg" ? ["postgresql"] : [];
  if (dbs.length === 0) throw new Error("--db / SCALE_DB must be sqlite, postgresql or both");
  const duration = num(env.SCALE_DURATION, quick ? 4 : 10, "SCALE_DURATION");
  return {
    n,
    dbs,
    quick,
    duration,
    warmup: quick ? 1 : 2,
    slice: Math.min(duration, 1.25),
    writes: num(env.SCALE_WRITES, quick ? 50 : 200, "SCALE_WRITES"),
    propagations: num(env.SCALE_PROPAGATIONS, quick ? 20 : 100, "SCALE_PROPAGATIONS", 2),
    connections: num(env.SCALE_CONNECTIONS, 50, "SCALE_CONNECTIONS"),
    pgUrl: env.SCALE_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres",
  };
}

// ---------------------------------------------------------------------------- cleanup

/** Everything to undo, newest first; run by the finally blocks and by SIGINT/SIGTERM. */
const cleanups: (() => Promise<void> | void)[] = [];
export function onCleanup(f: () => Promise<void> | void): void {
  cleanups.push(f);
}
export async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const f = cleanups.pop()!;
    try {
      await f();
    } catch (e) {
      console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
    }
  }
}

// ---------------------------------------------------------------------------- processes

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createNetServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

/** `toolgate bootstrap` (migrates, then creates the workspace and its owner); returns its ids. */
export async function bootstrap(env: NodeJS.ProcessEnv): Promise<{ workspace_id: string; user_id: string }> {
  return new Promise((resolveIds, reject) => {
    execFile(
      process.execPath,
      [TSX, join(ROOT, "src/cli.ts"), "bootstrap", "--email", ADMIN.email, "--password", ADMIN.password, "--workspace", "Scale bench"],
      { cwd: ROOT, env, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`toolgate bootstrap failed: ${err.message}\n${stderr}`));
        try {
          resolveIds(JSON.parse(stdout.trim().split("\n").pop()!));
        } catch {
          reject(new Error(`toolgate bootstrap printed no ids:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

export interface Server {
  url: string;
  /** Where the server's inspector listens once SIGUSR1 opens it (only to force a GC before reading RSS). */
  inspectPort: number;
  /** The node process running src/main.ts (tsx's CLI runs it as its child). */
  pid: number;
  startupMs: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node tsx/dist/cli.mjs src/main.ts` in its own process group and waits until /readyz
 * answers 200; start-up is measured from spawn to that answer.
 */
export async function startServer(env: NodeJS.ProcessEnv, port: number): Promise<Server> {
  // --inspect-port opens nothing by itself: it names the port a SIGUSR1 would open the inspector on.
  const inspectPort = await freePort();
  const nodeOptions = `${env.NODE_OPTIONS ?? ""} --inspect-port=127.0.0.1:${inspectPort}`.trim();
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [TSX, join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", NODE_OPTIONS: nodeOptions },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: tsx and the server it spawns are stopped together
  });
  let output = "";
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 64_000) output = output.slice(-32_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let stopped = false;
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    signalGroup("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 12_000))]);
    signalGroup("SIGKILL"); // the group: also a server child that outlived tsx
  };
  onCleanup(stop);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) {
        const startupMs = performance.now() - t0;
        return { url, inspectPort, pid: programPid(child.pid!), startupMs, output: () => output, stop };
      }
    } catch {
      /* not listening yet */
    }
    await sleep(20);
  }
  throw new Error(`server did not become ready in time:\n${output}`);
}

/** tsx's CLI runs the program in a child process: that child is the server. */
function programPid(cliPid: number): number {
  try {
    const children = readFileSync(`/proc/${cliPid}/task/${cliPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : cliPid;
  } catch {
    return cliPid; // not Linux
  }
}

export function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** VmRSS split into anonymous memory (heap) and file-backed pages (code, mapped files), MB. */
function memoryDetail(pid: number): { rss?: number; anon?: number; file?: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => {
      const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
      return m ? Math.round(Number(m[1]) / 1024) : undefined;
    };
    return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
  } catch {
    return {};
  }
}

// Run by a helper `node --experimental-websocket` (Node 20 has no WebSocket client otherwise):
// connects to the inspector URL in argv[1] and asks V8 for a full, memory-reducing GC, twice.
const GC_SCRIPT = `
const ws = new WebSocket(process.argv[1]);
let id = 0;
const send = (method) => new Promise((res, rej) => {
  const my = ++id;
  ws.addEventListener("message", function h(e) {
    const m = JSON.parse(e.data);
    if (m.id !== my) return;
    ws.removeEventListener("message", h);
    m.error ? rej(new Error(m.error.message)) : res(m.result);
  });
  ws.send(JSON.stringify({ id: my, method }));
});
ws.addEventListener("open", async () => {
  try {
    await send("HeapProfiler.enable");
    await send("HeapProfiler.collectGarbage");
    await send("HeapProfiler.collectGarbage");
    ws.close();
    process.exit(0);
  } catch (e) { console.error(e.message); process.exit(1); }
});
ws.addEventListener("error", () => { console.error("inspector websocket error"); process.exit(1); });
setTimeout(() => { console.error("inspector GC timed out"); process.exit(1); }, 30000);
`;

/**
 * RSS once the garbage is gone: SIGUSR1 opens the server's inspector (on its --inspect-port), a
 * helper asks for a full GC, then VmRSS is read. RSS right after load mostly measures how much
 * garbage the last slices left (it swings ±30% between two identical processes); this measures
 * what the process keeps.
 */
export async function rssAfterGc(server: Server): Promise<ReturnType<typeof memoryDetail>> {
  process.kill(server.pid, "SIGUSR1");
  let wsUrl: string | undefined;
  const deadline = Date.now() + 10_000;
  while (!wsUrl && Date.now() < deadline) {
    try {
      const list = (await (await fetch(`http://127.0.0.1:${server.inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
      wsUrl = list[0]?.webSocketDebuggerUrl;
    } catch {
      /* not open yet */
    }
    if (!wsUrl) await sleep(50);
  }
  if (!wsUrl) throw new Error(`the server's inspector did not open on port ${server.inspectPort}`);
  await new Promise<void>((resolveGc, reject) =>
    execFile(process.execPath, ["--experimental-websocket", "--no-warnings", "-e", GC_SCRIPT, wsUrl!], { timeout: 40_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`forced GC failed: ${err.message} ${stderr}`)) : resolveGc(),
    ),
  );
  await sleep(300);
  return memoryDetail(server.pid);
}

/** utime + stime of the process (all threads), µs; USER_HZ is 100 on mainstream Linux. */
function cpuUs(pid: number): number | undefined {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------- one installation

interface Installation {
  label: "empty" | "N";
  users: number;
  dbUrl: string;
  env: NodeJS.ProcessEnv;
  seed: SeedResult;
  probes: string[];
  server: Server;
  rssAfterStartMb?: number;
  /** RSS breakdown at each phase (JSON only). */
  memory: Record<string, ReturnType<typeof memoryDetail>>;
  ctx: BenchContext;
  workspaceId: string;
  fx: Fixtures;
  /** PostgreSQL: the second instance on the same database. */
  serverB?: Server;
}

interface Fixtures {
  rs: { id: string; introspection_secret: string; resource_url: string };
  m2m: { client_id: string; client_secret: string };
  userId: string;
  readerRoleId: string;
  directBindingId: string;
  userReq: AutocannonRequest;
  machineReq: AutocannonRequest;
}


/** What is measured, created through the public API exactly like bench/scenarios/introspect*.ts. */
async function fixtures(ctx: BenchContext, workspaceId: string): Promise<Fixtures> {
  const rs = await createServer(ctx, "scale");
  const m2m = await createClient(ctx, rs.id);
  const machineToken = await getToken(ctx, m2m);
  const redirectUri = "http://127.0.0.1/callback";
  const app = await ctx.admin("POST", `/svc/resource-servers/${rs.id}/clients`, {
    client_name: "scale app",
    kind: "human_app",
    redirect_uris: [redirectUri],
    allowed_scopes: ["files:read", "files:write"],
  });
  const tag = randomBytes(4).toString("hex");
  const email = `scale-measured-${tag}@example.test`;
  const password = "scale-password-123";
  const user = await ctx.admin("POST", `/uflow/v2/tenants/${workspaceId}/users`, { email, username: "measured", password });
  const reader = await ctx.admin("POST", "/svc/authmgr/roles", { name: `scale-reader-${tag}`, grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] });
  const writer = await ctx.admin("POST", "/svc/authmgr/roles", { name: `scale-writer-${tag}`, grants: [{ resource_server_id: rs.id, scope_ids: ["files:write"] }] });
  const direct = await ctx.admin("POST", `/uflow/v2/users/${user.id}/role-bindings`, { tenant_id: workspaceId, role_id: reader.id });
  const group = await ctx.admin("POST", "/uflow/v2/groups", { name: `scale-writers-${tag}` });
  await ctx.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: user.id });
  await ctx.admin("POST", `/uflow/v2/groups/${group.id}/role-bindings`, { tenant_id: workspaceId, role_id: writer.id });
  const token = await userToken(ctx, {
    clientId: app.client_id,
    clientSecret: app.client_secret,
    redirectUri,
    resource: rs.resource_url,
    email,
    password,
    scope: "files:read files:write",
  });
  return {
    rs,
    m2m,
    userId: user.id,
    readerRoleId: reader.id,
    directBindingId: direct.id,
    userReq: introspectionRequest(rs, token),
    machineReq: introspectionRequest(rs, machineToken),
  };
}

async function introspect(url: string, req: AutocannonRequest): Promise<{ active: boolean; scope?: string }> {
  const res = await fetch(url + req.path, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`introspection answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** A wrong answer is a bug, not a figure: check the tokens introspect as they must. */
async function checkAnswers(inst: Installation, url = inst.server.url): Promise<void> {
  const u = await introspect(url, inst.fx.userReq);
  if (!u.active || u.scope?.split(" ").sort().join(" ") !== "files:read files:write")
    throw new Error(`[${inst.label}] user token introspection: expected active with files:read files:write, got ${JSON.stringify(u)}`);
  const m = await introspect(url, inst.fx.machineReq);
  if (!m.active || m.scope !== "files:read") throw new Error(`[${inst.label}] machine token introspection: expected active files:read, got ${JSON.stringify(m)}`);
}

async function prepare(kind: DbKind, label: "empty" | "N", users: number, o: Options, probes: number): Promise<Installation> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-scale-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  let dbUrl: string;
  if (kind === "sqlite") dbUrl = `file:${join(dir, "toolgate.db")}`;
  else {
    const name = `toolgate_scale_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: o.pgUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    onCleanup(async () => {
      const c = new pg.Client({ connectionString: o.pgUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    });
    const u = new URL(o.pgUrl);
    u.pathname = `/${name}`;
    dbUrl = u.toString();
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl,
    TOOLGATE_DATA_DIR: dir,
    TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex"),
    TOOLGATE_LOG_LEVEL: "warn",
    NODE_ENV: "production",
  };
  for (const v of ["TOOLGATE_ADMIN_EMAIL", "TOOLGATE_ADMIN_PASSWORD", "TOOLGATE_BENCH_ROUTES", "PORT", "HOST", "TOOLGATE_PUBLIC_URL"]) delete env[v];

  const ids = await bootstrap(env);
  const spec = { workspaceId: ids.workspace_id, adminUserId: ids.user_id, users: label === "N" ? users : probes, full: label === "N", servers: SERVERS, roles: ROLES };
  const seed = kind === "sqlite" ? seedSqlite(join(dir, "toolgate.db"), spec) : await seedPostgres(dbUrl, spec);
  process.stdout.write(`  [${kind} ${label}] seeded ${seed.rows} rows in ${(seed.ms / 1000).toFixed(1)} s (${Object.entries(seed.counts).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(", ")})\n`);

  const port = await freePort();
  env.TOOLGATE_PUBLIC_URL = `http://127.0.0.1:${port}`; // shared by instance B: one issuer
  const server = await startServer(env, port);
  await sleep(500); // let start-up's last allocations settle before reading RSS
  const rssAfterStartMb = rssMb(server.pid);
  process.stdout.write(`  [${kind} ${label}] ready in ${(server.startupMs / 1000).toFixed(2)} s, RSS ${rssAfterStartMb?.toFixed(0)} MB (pid ${server.pid})\n`);
  const ctx = await adminContext(ADMIN, server.url);
  const fx = await fixtures(ctx, ids.workspace_id);
  const inst: Installation = { label, users, dbUrl, env, seed, probes: seed.userIds.slice(0, probes), server, rssAfterStartMb, ctx, workspaceId: ids.workspace_id, fx, memory: {} };
  inst.memory.afterStart = memoryDetail(server.pid);
  await checkAnswers(inst);
  await checkSeed(inst);
  inst.memory.afterFixtures = memoryDetail(server.pid);
  return inst;
}

/** The app reads the seeded rows as its own: a probe user's access, a seeded server and client. */
async function checkSeed(inst: Installation): Promise<void> {
  const access = await inst.ctx.admin<{ subject: string }[]>("GET", `/uflow/v2/users/${inst.probes[0]}/effective-access`);
  const subjects = access.map((a) => a.subject).sort().join(",");
  const expected = inst.label === "N" ? "group,user" : "user";
  if (subjects !== expected) throw new Error(`[${inst.label}] a seeded user's effective access: expected ${expected}, got ${JSON.stringify(access)}`);
  const { serverId, clientId } = inst.seed.sample;
  if (inst.label === "N") {
    const rs = await inst.ctx.admin<{ status?: string; state?: string }>("GET", `/svc/resource-servers/${serverId}`);
    if ((rs.status ?? rs.state) !== "ready") throw new Error(`[N] a seeded resource server: expected ready, got ${JSON.stringify(rs)}`);
    const client = await inst.ctx.admin<{ status: string }>("GET", `/svc/resource-servers/${serverId}/clients/${clientId}`);
    if (client.status !== "approved") throw new Error(`[N] a seeded client: expected approved, got ${JSON.stringify(client)}`);
  }
}

// ---------------------------------------------------------------------------- measurements

export const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
export const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function timed(what: string, f: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await f();
  const text = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text}`);
  return ms;
}

function adminCall(inst: Installation, method: string, path: string, body?: unknown): () => Promise<Response> {
  return () =>
    fetch(inst.server.url + path, {
      method,
      headers: { authorization: `Bearer ${inst.ctx.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

interface WriteFigures {
  bindingMs: number[];
  membershipMs: number[];
}

/** Sequential writes, alternating between the installations request by request. */
async function measureWrites(insts: Installation[], o: Options): Promise<WriteFigures[]> {
  const out: WriteFigures[] = insts.map(() => ({ bindingMs: [], membershipMs: [] }));
  const total = WARM_WRITES + o.writes;
  // A new direct binding for a different seeded user each time (the benchmark's reader role).
  for (let i = 0; i < total; i++) {
    for (const [k, inst] of insts.entries()) {
      const user = inst.probes[i]!;
      const ms = await timed(`[${inst.label}] POST role-binding`, adminCall(inst, "POST", `/uflow/v2/users/${user}/role-bindings`, { tenant_id: inst.workspaceId, role_id: inst.fx.readerRoleId }));
      if (i >= WARM_WRITES) out[k]!.bindingMs.push(ms);
    }
  }
  // Membership status: suspend a seeded user, then make them active again, the next user, ...
  for (let i = 0; i < total; i++) {
    for (const [k, inst] of insts.entries()) {
      const user = inst.probes[Math.floor(i / 2)]!;
      const status = i % 2 === 0 ? "suspended" : "active";
      const ms = await timed(`[${inst.label}] PATCH membership ${status}`, adminCall(inst, "PATCH", `/uflow/v2/tenants/${inst.workspaceId}/memberships/${user}`, { status }));
      if (i >= WARM_WRITES) out[k]!.membershipMs.push(ms);
    }
  }
  return out;
}

interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerReq?: number;
  non2xx: number;
  errors: number;
}

interface Slice {
  total: number;
  seconds: number;
  p50: number;
  p99: number;
  cpuUs?: number;
  non2xx: number;
  errors: number;
}

async function slice(url: string, pid: number, req: AutocannonRequest, seconds: number, connections: number): Promise<Slice> {
  const c0 = cpuUs(pid);
  const r = await autocannon({ url: url + req.path, method: req.method, headers: req.headers, body: req.body, connections, duration: seconds });
  const c1 = cpuUs(pid);
  return {
    total: r.requests.total,
    seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: c0 !== undefined && c1 !== undefined ? c1 - c0 : undefined,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

function summarize(slices: Slice[]): LoadFigures {
  const sum = (f: (s: Slice) => number) => slices.reduce((a, s) => a + f(s), 0);
  return {
    rps: sum((s) => s.total) / sum((s) => s.seconds),
    p50: median(slices.map((s) => s.p50)),
    p99: median(slices.map((s) => s.p99)),
    cpuUsPerReq: slices.every((s) => s.cpuUs !== undefined) ? sum((s) => s.cpuUs!) / sum((s) => s.total) : undefined,
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
  };
}

/** Introspection load, slices round-robin over (token kind × installation). */
async function measureLoad(insts: Installation[], o: Options): Promise<{ figures: { user: LoadFigures; machine: LoadFigures }[]; roundRatios: { user: number[]; machine: number[] } }> {
  const kinds = ["user", "machine"] as const;
  const reqOf = (inst: Installation, kind: (typeof kinds)[number]) => (kind === "user" ? inst.fx.userReq : inst.fx.machineReq);
  for (const kind of kinds) for (const inst of insts) await slice(inst.server.url, inst.server.pid, reqOf(inst, kind), o.warmup, o.connections);
  const rounds = Math.max(1, Math.round(o.duration / o.slice));
  const seconds = o.duration / rounds;
  const slices = insts.map(() => ({ user: [] as Slice[], machine: [] as Slice[] }));
  for (let r = 0; r < rounds; r++) {
    // Which installation goes first alternates by round, so neither always follows the other.
    const order = r % 2 === 0 ? [...insts.keys()] : [...insts.keys()].reverse();
    for (const kind of kinds)
      for (const k of order) {
        const inst = insts[k]!;
        slices[k]![kind][r] = await slice(inst.server.url, inst.server.pid, reqOf(inst, kind), seconds, o.connections);
      }
    process.stdout.write(
      `    load round ${r + 1}/${rounds}: ${kinds.map((kind) => insts.map((inst, k) => `${kind}@${inst.label} ${(slices[k]![kind][r]!.total / seconds).toFixed(0)}`).join(", ")).join(", ")} req/s\n`,
    );
  }
  for (const inst of insts) await checkAnswers(inst);
  // Per round: N's req/s over empty's, slices taken seconds apart (the reported ratio is their median).
  const roundRatios = { user: [] as number[], machine: [] as number[] };
  for (const kind of kinds) for (let r = 0; r < rounds; r++) roundRatios[kind].push(slices[1]![kind][r]!.total / slices[0]![kind][r]!.total);
  return { figures: slices.map((s) => ({ user: summarize(s.user), machine: summarize(s.machine) })), roundRatios };
}

interface Propagation {
  revokeMs: number[];
  bindingMs: number[];
  misses: number;
}

/** Polls B until `changed(answer)`; the delay from `since`, or undefined after PROPAGATION_GIVE_UP_MS. */
async function pollUntil(url: string, req: AutocannonRequest, changed: (a: { active: boolean; scope?: string }) => boolean, since: number): Promise<number | undefined> {
  for (;;) {
    const a = await introspect(url, req);
    const now = performance.now();
    if (changed(a)) return now - since;
    if (now - since > PROPAGATION_GIVE_UP_MS) return undefined;
  }
}

/**
 * PostgreSQL: a change through instance A, seen by instance B. Two kinds, alternating installations:
 * - revoke: a fresh machine token (minted on A, introspected once on B so B caches it as active) is
 *   revoked on A (POST /oauth/revoke); delay until B answers active=false;
 * - binding: the measured user's direct binding (files:read) is deleted on A, later created again;
 *   delay until B's answer for the user token drops / regains files:read.
 */
async function measurePropagation(insts: Installation[], o: Options): Promise<Propagation[]> {
  const out: Propagation[] = insts.map(() => ({ revokeMs: [], bindingMs: [], misses: 0 }));
  const basic = (c: { client_id: string; client_secret: string }) => `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString("base64")}`;
  for (let i = 0; i < o.propagations; i++) {
    for (const [k, inst] of insts.entries()) {
      const b = inst.serverB!.url;
      const token = await getToken(inst.ctx, inst.fx.m2m);
      const req = introspectionRequest(inst.fx.rs, token);
      const before = await introspect(b, req);
      if (!before.active) throw new Error(`[${inst.label}] instance B: a fresh machine token minted on A is inactive: ${JSON.stringify(before)}`);
      await timed(`[${inst.label}] POST /oauth/revoke on A`, () =>
        fetch(`${inst.server.url}/oauth/revoke`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(inst.fx.m2m) },
          body: new URLSearchParams({ token }).toString(),
        }),
      );
      const written = performance.now();
      const d = await pollUntil(b, req, (a) => !a.active, written);
      if (d === undefined) out[k]!.misses++;
      else out[k]!.revokeMs.push(d);
    }
    for (const [k, inst] of insts.entries()) {
      const b = inst.serverB!.url;
      const remove = i % 2 === 0;
      const hasRead = (a: { active: boolean; scope?: string }) => a.active && (a.scope ?? "").split(" ").includes("files:read");
      if (remove) {
        await timed(`[${inst.label}] DELETE role-binding on A`, adminCall(inst, "DELETE", `/uflow/v2/role-bindings/${inst.fx.directBindingId}`));
      } else {
        const t0 = performance.now();
        const res = await adminCall(inst, "POST", `/uflow/v2/users/${inst.fx.userId}/role-bindings`, { tenant_id: inst.workspaceId, role_id: inst.fx.readerRoleId })();
        const body = await res.text();
        if (res.status !== 201) throw new Error(`[${inst.label}] POST role-binding on A: ${res.status} ${body} (${performance.now() - t0} ms)`);
        inst.fx.directBindingId = JSON.parse(body).id;
      }
      const written = performance.now();
      const d = await pollUntil(b, inst.fx.userReq, (a) => (remove ? !hasRead(a) && a.active : hasRead(a)), written);
      if (d === undefined) out[k]!.misses++;
      else out[k]!.bindingMs.push(d);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------- report

interface Row {
  metric: string;
  empty: number | undefined;
  n: number | undefined;
  ratio?: number;
  target?: string;
  pass?: boolean;
  digits?: number;
}

function fmt(v: number | undefined, digits = 1): string {
  if (v === undefined || Number.isNaN(v)) return "-";
  if (!Number.isFinite(v)) return "∞";
  return v.toFixed(digits);
}

function printTable(title: string, rows: Row[], nLabel: string): void {
  const header = ["metric", "empty", nLabel, "ratio", "target", "result"];
  const lines = rows.map((r) => [
    r.metric,
    fmt(r.empty, r.digits),
    fmt(r.n, r.digits),
    r.ratio === undefined ? "-" : fmt(r.ratio, 2),
    r.target ?? "-",
    r.pass === undefined ? "-" : r.pass ? "pass" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of lines) console.log(line(l));
}

interface DbResult {
  database: DbKind;
  n: number;
  rows: Row[];
  raw: unknown;
}

async function runDatabase(kind: DbKind, o: Options): Promise<DbResult> {
  console.log(`\n== ${kind}: empty vs N=${o.n}`);
  const probes = WARM_WRITES + o.writes;
  const mark = cleanups.length;
  try {
    const empty = await prepare(kind, "empty", 0, o, probes);
    const big = await prepare(kind, "N", o.n, o, probes);
    const insts = [empty, big];
    console.log(`  writes: ${o.writes} role bindings and ${o.writes} membership changes each (after ${WARM_WRITES} unmeasured)`);
    const writes = await measureWrites(insts, o);
    for (const i of insts) i.memory.afterWrites = memoryDetail(i.server.pid);
    console.log(`  introspection load: ${o.connections} connections, ${o.duration} s per token kind and installation (+${o.warmup} s warm-up)`);
    const load = await measureLoad(insts, o);
    const rssAfterLoad = insts.map((i) => rssMb(i.server.pid));
    for (const i of insts) i.memory.afterLoad = memoryDetail(i.server.pid);
    for (const i of insts) i.memory.afterLoadGc = await rssAfterGc(i.server);
    const rssAfterGcMb = insts.map((i) => i.memory.afterLoadGc!.rss);
    const show = (phase: string) => insts.map((i) => `${i.label} ${i.memory[phase]!.rss} MB (anon ${i.memory[phase]!.anon}, file ${i.memory[phase]!.file})`).join(", ");
    console.log(`    RSS after load: ${show("afterLoad")}; after a full GC: ${show("afterLoadGc")}`);
    let propagation: Propagation[] | undefined;
    if (kind === "postgresql") {
      for (const inst of insts) {
        inst.serverB = await startServer(inst.env, await freePort());
        await checkAnswers(inst, inst.serverB.url);
      }
      console.log(`  propagation A -> B: ${o.propagations} revocations and ${o.propagations} binding changes each`);
      propagation = await measurePropagation(insts, o);
    }

    const [we, wn] = writes as [WriteFigures, WriteFigures];
    const [le, ln] = load.figures as [(typeof load.figures)[0], (typeof load.figures)[0]];
    const rows: Row[] = [];
    const ratioRow = (metric: string, e: number | undefined, n: number | undefined, target?: { text: string; ok: (r: number) => boolean }, digits = 1): Row => {
      const ratio = e !== undefined && n !== undefined && e > 0 ? n / e : undefined;
      return { metric, empty: e, n, ratio, target: target?.text, pass: target ? ratio !== undefined && target.ok(ratio) : undefined, digits };
    };
    const le15 = { text: "ratio <= 1.5", ok: (r: number) => r <= 1.5 };
    const ge09 = { text: "ratio >= 0.9", ok: (r: number) => r >= 0.9 };
    rows.push({ metric: "seed (s)", empty: empty.seed.ms / 1000, n: big.seed.ms / 1000, digits: 1 });
    rows.push({ metric: "start-up to ready (s)", empty: empty.server.startupMs / 1000, n: big.server.startupMs / 1000, ratio: big.server.startupMs / empty.server.startupMs, target: "N < 10 s", pass: big.server.startupMs < 10_000, digits: 2 });
    rows.push(ratioRow("RSS after start (MB)", empty.rssAfterStartMb, big.rssAfterStartMb, undefined, 0));
    rows.push(ratioRow("role-binding POST p50 (ms)", median(we.bindingMs), median(wn.bindingMs), le15, 2));
    rows.push(ratioRow("role-binding POST p99 (ms)", pct(we.bindingMs, 99), pct(wn.bindingMs, 99), undefined, 2));
    rows.push(ratioRow("membership PATCH p50 (ms)", median(we.membershipMs), median(wn.membershipMs), le15, 2));
    rows.push(ratioRow("membership PATCH p99 (ms)", pct(we.membershipMs, 99), pct(wn.membershipMs, 99), undefined, 2));
    for (const kindName of ["user", "machine"] as const) {
      const e = le[kindName];
      const n = ln[kindName];
      const clean = e.non2xx + e.errors + n.non2xx + n.errors === 0;
      const r = ratioRow(`introspect ${kindName} token (req/s)`, e.rps, n.rps, ge09, 0);
      r.ratio = median(load.roundRatios[kindName]);
      r.pass = r.ratio >= 0.9;
      if (!clean) {
        r.pass = false;
        r.target = `${r.target} (non-2xx ${e.non2xx}/${n.non2xx}, errors ${e.errors}/${n.errors})`;
      }
      rows.push(r);
      rows.push(ratioRow(`introspect ${kindName} p50 (ms)`, e.p50, n.p50, undefined, 0));
      rows.push(ratioRow(`introspect ${kindName} p99 (ms)`, e.p99, n.p99, undefined, 0));
      rows.push(ratioRow(`introspect ${kindName} CPU (µs/req)`, e.cpuUsPerReq, n.cpuUsPerReq, undefined, 0));
    }
    rows.push(ratioRow("RSS after load (MB)", rssAfterLoad[0], rssAfterLoad[1], undefined, 0));
    rows.push(ratioRow("RSS after load + full GC (MB)", rssAfterGcMb[0], rssAfterGcMb[1], le15, 0));
    if (propagation) {
      const [pe, pn] = propagation as [Propagation, Propagation];
      const withMisses = (p: Propagation, xs: number[]) => [...xs, ...Array.from({ length: p.misses }, () => Infinity)];
      const propRows = (what: string, e: number[], n: number[]) => {
        rows.push({ metric: `propagation ${what} p50 (ms)`, empty: median(withMisses(pe, e)), n: median(withMisses(pn, n)), digits: 1 });
        const e99 = pct(withMisses(pe, e), 99);
        const n99 = pct(withMisses(pn, n), 99);
        rows.push({ metric: `propagation ${what} p99 (ms)`, empty: e99, n: n99, target: "p99 < 100 ms", pass: e99 < 100 && n99 < 100, digits: 1 });
      };
      propRows("revoke", pe.revokeMs, pn.revokeMs);
      propRows("binding", pe.bindingMs, pn.bindingMs);
      if (pe.misses + pn.misses > 0) rows.push({ metric: `propagation gave up after ${PROPAGATION_GIVE_UP_MS} ms (count)`, empty: pe.misses, n: pn.misses, pass: false, digits: 0 });
    } else {
      rows.push({ metric: "propagation A -> B", empty: undefined, n: undefined, target: "n/a (one server per SQLite file)" });
    }
    printTable(`${kind}: empty vs N=${o.n} users`, rows, `N=${o.n}`);
    return {
      database: kind,
      n: o.n,
      rows,
      raw: {
        seed: { empty: { ms: empty.seed.ms, counts: empty.seed.counts }, n: { ms: big.seed.ms, counts: big.seed.counts } },
        startupMs: { empty: empty.server.startupMs, n: big.server.startupMs, emptyB: empty.serverB?.startupMs, nB: big.serverB?.startupMs },
        rssMb: { afterStart: [empty.rssAfterStartMb, big.rssAfterStartMb], afterLoad: rssAfterLoad, afterLoadGc: rssAfterGcMb },
        memoryMb: { empty: empty.memory, n: big.memory },
        writes,
        load,
        propagation,
      },
    };
  } finally {
    // This database's servers, databases and temp dirs (newest first).
    while (cleanups.length > mark) {
      const f = cleanups.pop()!;
      try {
        await f();
      } catch (e) {
        console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
      }
    }
  }
}

export async function runScale(argv: string[]): Promise<void> {
  const o = options(argv);
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`\n${sig}: stopping servers, dropping databases, removing temp dirs`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const started = new Date();
  console.log(
    `Toolgate scale bench: N=${o.n}${o.quick ? " (quick)" : ""}, ${o.dbs.join(" + ")}, ${o.writes} writes of each kind, ` +
      `${o.connections} connections × ${o.duration} s per token kind, node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? "cpu"}`,
  );
  const results: DbResult[] = [];
  let failed = false;
  try {
    for (const kind of o.dbs) results.push(await runDatabase(kind, o));
  } catch (e) {
    failed = true;
    console.error(`\nscale bench failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
  } finally {
    await cleanUp();
  }
  const allPass = !failed && results.every((r) => r.rows.every((row) => row.pass !== false));
  if (results.length > 0) {
    const dir = join(ROOT, "bench/results");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `scale-${started.toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          started: started.toISOString(),
          finished: new Date().toISOString(),
          options: o,
          machine: { cpus: cpus().length, model: cpus()[0]?.model, memoryMb: Math.round(totalmem() / 2 ** 20), node: process.version },
          pass: allPass,
          results,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`\nresults: ${file}`);
  }
  console.log(`scale bench ${allPass ? "passed" : "FAILED"} in ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`);
  process.exitCode = allPass ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runScale(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
