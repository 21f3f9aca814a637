// npm run bench -- latency — answer times of single requests, sent one at a time over one
// keep-alive connection to one Toolgate process (its own process, fresh database), per database:
//
// 1. client authentication: does the token endpoint's answer time tell a prober whether a
//    client_id exists? Two kinds of refused client_secret_basic requests, interleaved one by one
//    (the order alternating, so whatever else the machine does hits both alike):
//      unknown: a client_id no client has, a new one for every request (what a prober enumerating
//               ids sends: each one misses every cache);
//      known:   the id of a real client with a wrong secret.
//    Both must answer 401 invalid_client. Printed: median and p90 of each (ms) and the ratio of
//    the medians, unknown / known.
// 2. registration: POST /oauth/register (a public client), the median and p90 (ms): what the
//    per-address registration limit adds to a registration.
//
// Run on SQLite, and on PostgreSQL when BENCH_DATABASE_URL names a server (a fresh database on it).
// Environment: LATENCY_REQUESTS (each kind, default 1000), LATENCY_REGISTRATIONS (default 300),
// LATENCY_WARMUP (each kind, default 100), LATENCY_DB (sqlite, postgresql or both; default both
// when BENCH_DATABASE_URL is set, else sqlite), BENCH_SERVER_ROOT (serve the src/main.ts of another
// checkout, e.g. the branch point, to compare before and after with the same client).
// Figures, not pass/fail: docs/oauth.md ("Client authentication") and decision 0030 record runs.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { adminContext } from "./scenario";
import { createClient, createServer as createResourceServer } from "./oauth-fixtures";
import { createPostgresDatabase } from "../test/helpers/database";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVER_ROOT = resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
const ADMIN = { email: "latency-owner@example.test", password: "latency bench password, not a secret" };
const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const REQUESTS = count("LATENCY_REQUESTS", 1000);
const REGISTRATIONS = count("LATENCY_REGISTRATIONS", 300);
const WARMUP = count("LATENCY_WARMUP", 100);

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const s = createServer().once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });

/** Toolgate in its own process on `databaseUrl` (undefined: a fresh embedded SQLite file). */
async function startToolgate(databaseUrl: string | undefined): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolgate-latency-"));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", TOOLGATE_DATA_DIR: dataDir, TOOLGATE_LOG_LEVEL: "warn", NODE_ENV: "production" };
  for (const name of ["DATABASE_URL", "TOOLGATE_PUBLIC_URL", "TOOLGATE_MASTER_KEY", "TOOLGATE_WORKERS"]) delete env[name];
  Object.assign(env, { TOOLGATE_ADMIN_EMAIL: ADMIN.email, TOOLGATE_ADMIN_PASSWORD: ADMIN.password, TOOLGATE_REGISTRATION_RATE_LIMIT: "1000000" });
  if (databaseUrl) Object.assign(env, { DATABASE_URL: databaseUrl, TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex") });
  const child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(SERVER_ROOT, "src/main.ts")], { cwd: SERVER_ROOT, env, stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const exited = new Promise((r) => child.once("exit", r));
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (child.exitCode !== null) throw new Error(`Toolgate exited with ${child.exitCode}`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return { url, stop };
  }
  await stop();
  throw new Error("Toolgate did not become ready in time");
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request: its status and the time to its last byte (ms). */
function timed(base: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; ms: number }> {
  return new Promise((ok, fail) => {
    const start = process.hrtime.bigint();
    const req = request(`${base}${path}`, { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on("end", () => ok({ status: res.statusCode!, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

const tokenRequest = (base: string, id: string, secret: string) =>
  timed(
    base,
    "/oauth/token",
    { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}` },
    "grant_type=client_credentials&scope=files%3Aread",
  );

const registration = (base: string) => timed(base, "/oauth/register", { "content-type": "application/json" }, JSON.stringify({ redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "none", client_name: "latency bench" }));

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const figures = (xs: number[]) => `median ${quantile(xs, 0.5).toFixed(3)} ms, p90 ${quantile(xs, 0.9).toFixed(3)} ms`;

async function repeat(times: number, send: () => Promise<{ status: number; ms: number }>, expected: number, into: number[] | undefined): Promise<void> {
  for (let i = 0; i < times; i++) {
    const r = await send();
    if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}`);
    into?.push(r.ms);
  }
}

async function measure(label: string, databaseUrl: string | undefined): Promise<void> {
  const toolgate = await startToolgate(databaseUrl);
  try {
    const ctx = await adminContext(ADMIN, toolgate.url);
    const client = await createClient(ctx, (await createResourceServer(ctx, "latency")).id);
    const unknownId = () => `tgc_${randomBytes(16).toString("base64url").slice(0, 22)}`;
    const wrongSecret = () => randomBytes(32).toString("base64url");
    const times = { unknown: [] as number[], known: [] as number[] };
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const pair = [
        () => repeat(1, () => tokenRequest(toolgate.url, unknownId(), wrongSecret()), 401, i < WARMUP ? undefined : times.unknown),
        () => repeat(1, () => tokenRequest(toolgate.url, client.client_id, wrongSecret()), 401, i < WARMUP ? undefined : times.known),
      ];
      for (const send of i % 2 === 0 ? pair : pair.reverse()) await send();
    }
    const ratio = quantile(times.unknown, 0.5) / quantile(times.known, 0.5);
    console.log(`${label}: token endpoint, ${REQUESTS} each: unknown client_id ${figures(times.unknown)} | known client_id, wrong secret ${figures(times.known)} | ratio of medians ${ratio.toFixed(2)}`);
    const registered: number[] = [];
    await repeat(WARMUP, () => registration(toolgate.url), 201, undefined);
    await repeat(REGISTRATIONS, () => registration(toolgate.url), 201, registered);
    console.log(`${label}: POST /oauth/register, ${REGISTRATIONS}: ${figures(registered)}`);
  } finally {
    await toolgate.stop();
  }
}

export async function runLatency(): Promise<void> {
  const server = process.env.BENCH_DATABASE_URL;
  const which = process.env.LATENCY_DB ?? (server ? "both" : "sqlite");
  console.log(`serving ${SERVER_ROOT}`);
  if (which !== "postgresql") await measure("SQLite", undefined);
  if (which !== "sqlite") {
    if (!server) throw new Error("PostgreSQL needs BENCH_DATABASE_URL (a server: a fresh database is created on it)");
    const pg = await createPostgresDatabase(server, "toolgate_latency");
    try {
      await measure("PostgreSQL", pg.url);
    } finally {
      await pg.drop();
    }
  }
  agent.destroy();
}
