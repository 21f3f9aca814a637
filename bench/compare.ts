// `npm run bench -- compare --with <dir>`: this checkout against another one (e.g. main's HEAD,
// extracted with `git archive`), in ONE run, so the machine's noise hits both alike:
// - admin writes (issue 23: the audit trail's cost): sequential POST group, POST role binding and
//   PATCH membership on each server, alternating in rounds; p50 per kind and this/other ratio;
// - the hot paths (their req/s must not change): autocannon slices of the token and introspection
//   requests, interleaved this, other, this, ... ; the median per-round req/s ratio.
// Both servers run `tsx src/main.ts` from their own folder on a fresh embedded SQLite database (or
// a fresh PostgreSQL database each with BENCH_DATABASE_URL), request logs at info to a file.
// Environment: BENCH_ROUNDS (default 6), BENCH_WRITES (per kind, server and round; default 20),
// BENCH_SLICE (s per hot-path slice, default 2), BENCH_CONNECTIONS (default 50).
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { adminContext, type AutocannonRequest, type BenchContext } from "./scenario";
import { createClient, createServer, getToken, introspectionRequest } from "./oauth-fixtures";
import { createPostgresDatabase } from "../test/helpers/database";
import { freePort } from "../test/helpers/process";

const HERE = resolve(import.meta.dirname, "..");
const ADMIN = { email: "bench-owner@example.test", password: "bench password, not a secret" };
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const ROUNDS = env("BENCH_ROUNDS", 6);
const WRITES = env("BENCH_WRITES", 20);
const SLICE = env("BENCH_SLICE", 2);
const CONNECTIONS = env("BENCH_CONNECTIONS", 50);

interface Running {
  label: string;
  url: string;
  child: ChildProcess;
  /** The server program's pid (tsx's CLI runs it as its child), for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** CPU time (µs) the process has used: utime + stime from /proc (Linux; undefined elsewhere). */
function cpuUs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

function programPid(cliPid: number | undefined): number | undefined {
  try {
    const children = readFileSync(`/proc/${cliPid}/task/${cliPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : cliPid;
  } catch {
    return undefined;
  }
}

async function start(label: string, root: string): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolgate-compare-"));
  const port = await freePort();
  const pg = process.env.BENCH_DATABASE_URL ? await createPostgresDatabase(process.env.BENCH_DATABASE_URL, "toolgate_compare") : undefined;
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: "127.0.0.1", TOOLGATE_DATA_DIR: dataDir, TOOLGATE_ADMIN_EMAIL: ADMIN.email, TOOLGATE_ADMIN_PASSWORD: ADMIN.password, TOOLGATE_LOG_LEVEL: "info" };
  if (pg) Object.assign(childEnv, { DATABASE_URL: pg.url, TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex") });
  const log = join(dataDir, "output.log");
  const out = openSync(log, "w");
  const child = spawn(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "src/main.ts")], { cwd: root, env: childEnv, stdio: ["ignore", out, out] });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)));
    rmSync(dataDir, { recursive: true, force: true });
    await pg?.drop();
  };
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (child.exitCode !== null) throw new Error(`${label} exited:\n${readFileSync(log, "utf8").slice(-3000)}`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return { label, url, child, pid: programPid(child.pid), stop };
  }
  await stop();
  throw new Error(`${label} did not start`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Writes {
  ctx: BenchContext;
  userId: string;
  roleId: string;
  serial: number;
}

async function prepareWrites(ctx: BenchContext): Promise<Writes> {
  const ws = JSON.parse(Buffer.from(ctx.adminToken.split(".")[1]!, "base64url").toString()).tenant_id as string;
  const user = await ctx.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email: "bench-user@example.test", username: "bench-user" });
  const role = await ctx.admin("POST", "/svc/authmgr/roles", { name: "bench role", grants: [] });
  return { ctx, userId: user.id, roleId: role.id, serial: 0 };
}

const KINDS = ["POST group", "POST role binding", "PATCH membership"] as const;

/** One write of `kind`; resolves to its latency in ms. */
async function write(w: Writes, kind: (typeof KINDS)[number]): Promise<number> {
  const ws = JSON.parse(Buffer.from(w.ctx.adminToken.split(".")[1]!, "base64url").toString()).tenant_id as string;
  w.serial++;
  const t0 = performance.now();
  if (kind === "POST group") await w.ctx.admin("POST", "/uflow/v2/groups", { name: `g${w.serial}` });
  else if (kind === "POST role binding") await w.ctx.admin("POST", `/uflow/v2/users/${w.userId}/role-bindings`, { tenant_id: ws, role_id: w.roleId });
  else await w.ctx.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${w.userId}`, { external_id: `x${w.serial}` });
  return performance.now() - t0;
}

/** One slice of load: req/s, and the server's CPU µs per request (steadier than req/s on a shared machine). */
async function slice(server: Running, req: AutocannonRequest): Promise<{ rps: number; cpu: number }> {
  const before = cpuUs(server.pid);
  const r = await autocannon({ url: server.url + req.path, method: req.method, headers: req.headers, body: req.body, connections: CONNECTIONS, duration: SLICE });
  const after = cpuUs(server.pid);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${req.path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.total / SLICE, cpu: before === undefined || after === undefined ? Number.NaN : (after - before) / r.requests.total };
}

export async function runCompare(argv: string[]): Promise<void> {
  const i = argv.indexOf("--with");
  const other = i >= 0 ? resolve(argv[i + 1] ?? "") : "";
  if (!other || !existsSync(join(other, "src/main.ts"))) throw new Error("usage: npm run bench -- compare --with <another checkout with node_modules and generated clients>");
  const servers = [await start("this", HERE), await start("other", other)];
  try {
    const ctxs = await Promise.all(servers.map((s) => adminContext(ADMIN, s.url)));
    const writes = await Promise.all(ctxs.map(prepareWrites));
    const hot = await Promise.all(
      ctxs.map(async (ctx) => {
        const server = await createServer(ctx, "compare");
        const client = await createClient(ctx, server.id);
        const token: AutocannonRequest = {
          method: "POST",
          path: "/oauth/token",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}` },
          body: "grant_type=client_credentials&scope=files%3Aread",
        };
        return { token, introspect: introspectionRequest(server, await getToken(ctx, client)) };
      }),
    );
    const ms: Record<string, number[][]> = Object.fromEntries(KINDS.map((k) => [k, [[], []]]));
    const rps: Record<"token" | "introspect", { rps: number; cpu: number }[][]> = { token: [[], []], introspect: [[], []] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const kind of KINDS) for (const s of order) for (let n = 0; n < WRITES; n++) ms[kind]![s]!.push(await write(writes[s]!, kind));
      for (const path of ["token", "introspect"] as const) for (const s of order) rps[path][s]!.push(await slice(servers[s]!, hot[s]![path]));
      process.stdout.write(`round ${round + 1}/${ROUNDS}\n`);
    }
    console.log(`\n${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "SQLite"}; ${ROUNDS} rounds; ${WRITES} writes per kind, server and round; ${SLICE} s slices, ${CONNECTIONS} connections`);
    console.log("metric                           this      other     this/other");
    for (const kind of KINDS) {
      const [a, b] = [median(ms[kind]![0]!), median(ms[kind]![1]!)];
      console.log(`${`${kind} p50 (ms)`.padEnd(30)} ${a.toFixed(2).padStart(8)}  ${b.toFixed(2).padStart(8)}  ${(a / b).toFixed(2).padStart(8)}`);
    }
    for (const path of ["token", "introspect"] as const) {
      const [a, b] = rps[path];
      const ratio = median(a!.map((x, r) => x.rps / b![r]!.rps));
      console.log(`${`${path} req/s`.padEnd(30)} ${median(a!.map((x) => x.rps)).toFixed(0).padStart(8)}  ${median(b!.map((x) => x.rps)).toFixed(0).padStart(8)}  ${ratio.toFixed(2).padStart(8)}`);
      const cpuRatio = median(a!.map((x, r) => x.cpu / b![r]!.cpu));
      console.log(`${`${path} CPU µs/req`.padEnd(30)} ${median(a!.map((x) => x.cpu)).toFixed(0).padStart(8)}  ${median(b!.map((x) => x.cpu)).toFixed(0).padStart(8)}  ${cpuRatio.toFixed(2).padStart(8)}`);
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}
