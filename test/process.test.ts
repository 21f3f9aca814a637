// The server and the CLI as a new user runs them: real processes, real database, real HTTP.
import { afterAll, describe, expect, it, vi } from "vitest";

// Each case starts real processes (tsx compiles the app at start): give them room on a busy machine.
vi.setConfig({ testTimeout: 180_000 });
import { statSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");
import { freshEnv as createEnv, type TestDatabase } from "./helpers/database";
import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { ROOT, runCli, startServerProcess, type RunningServer } from "./helpers/process";
import { eventually } from "./helpers/eventually";
import { runCli as runCommand } from "../src/cli/run";

const dbs: TestDatabase[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dbs) await d.drop();
});

const freshEnv = () => createEnv(dbs);

describe("npm start", () => {
  it("bootstraps from TOOLGATE_ADMIN_*, logs in, keeps keys across restarts, and logs no secrets", async () => {
    const env = await freshEnv();
    const password = "s3cret-Passw0rd-for-test";
    env.TOOLGATE_PUBLIC_URL = "https://toolgate.example.test"; // the issuer stays the same across restarts
    const first = await startServerProcess({ ...env, TOOLGATE_ADMIN_EMAIL: "boss@example.test", TOOLGATE_ADMIN_PASSWORD: password, TOOLGATE_WORKSPACE_NAME: "Ops" });
    servers.push(first);
    expect(first.output()).toMatch(/Created workspace [0-9a-f-]{36} with owner boss@example.test/);
    expect(first.output()).toContain("/svc/uflow/auth/login");
    if (!env.TOOLGATE_MASTER_KEY) {
      const keyFile = join(env.TOOLGATE_DATA_DIR!, "master.key");
      expect(existsSync(keyFile)).toBe(true);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    }
    const login = await fetch(`${first.url}/svc/uflow/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer should-not-be-logged" },
      body: JSON.stringify({ email: "boss@example.test", password }),
    });
    expect(login.status).toBe(200);
    const { access_token } = (await login.json()) as { access_token: string };
    await fetch(`${first.url}/healthz?token=query-secret-value`);
    await first.stop();
    for (const secret of [password, access_token, "should-not-be-logged", "query-secret-value"]) {
      expect(first.output()).not.toContain(secret);
    }
    // Request logs are JSON lines with a request id.
    const requestLines = first.output().split("\n").filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.length).toBeGreaterThan(0);
    for (const l of requestLines) expect(JSON.parse(l).requestId).toMatch(/^[0-9a-f-]{36}$/);

    // Restart on the same database: no second bootstrap, the same master key decrypts the same
    // signing key, so the token from the first run is still valid.
    const second = await startServerProcess({ ...env, TOOLGATE_ADMIN_EMAIL: "boss@example.test", TOOLGATE_ADMIN_PASSWORD: password });
    servers.push(second);
    expect(second.output()).not.toContain("Created workspace");
    // The variables only create the first workspace: the server says it ignored them.
    expect(second.output()).toContain(
      "TOOLGATE_ADMIN_EMAIL and TOOLGATE_ADMIN_PASSWORD are ignored: this database already has a workspace (they only create the first one). Log in with its existing owner.",
    );
    const me = await fetch(`${second.url}/svc/resource-servers`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(me.status).toBe(200);
    await second.stop();
  });

  it("on a fresh embedded database without TOOLGATE_ADMIN_*, writes first-admin credentials to a 0600 file", async () => {
    const env = await freshEnv();
    if (env.DATABASE_URL!.startsWith("postgres")) {
      const s = await startServerProcess(env);
      servers.push(s);
      expect(s.output()).toContain("No workspace exists yet");
      // The hint works as printed, in a shell where TOOLGATE_MASTER_KEY is exported (as it says);
      // the password comes from standard input, never from argv.
      const hint = s.output().split("\n").find((l) => l.includes("npx toolgate bootstrap"))!;
      expect(hint).toContain(`DATABASE_URL='${env.DATABASE_URL}'`);
      const printed = hint.trim().replace("you@example.com", "hinted@example.test");
      const ran = spawnSync("bash", ["-c", printed], { cwd: ROOT, input: "hinted-password-1\n", encoding: "utf8", env: { PATH: process.env.PATH!, HOME: process.env.HOME!, TOOLGATE_MASTER_KEY: env.TOOLGATE_MASTER_KEY! }, timeout: 120_000 });
      expect(ran.status, ran.stderr).toBe(0);
      const login = await fetch(`${s.url}/svc/uflow/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "hinted@example.test", password: "hinted-password-1" }) });
      expect(login.status).toBe(200);
      return s.stop();
    }
    const s = await startServerProcess(env);
    servers.push(s);
    const file = join(env.TOOLGATE_DATA_DIR!, "initial-admin.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(readFileSync(file, "utf8"));
    expect(s.output()).toContain(file);
    expect(s.output()).not.toContain(creds.password);
    const login = await fetch(`${s.url}/svc/uflow/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(creds) });
    expect(login.status).toBe(200);
    await s.stop();
  });

  it("on a port already in use, says so in two lines and exits 1", async () => {
    const env = await freshEnv();
    const first = await startServerProcess(env);
    servers.push(first);
    const port = new URL(first.url).port;
    const other = await freshEnv();
    const second = spawnSync(process.execPath, [TSX, join(ROOT, "src/main.ts")], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...other, PORT: port, HOST: "127.0.0.1" },
    });
    expect(second.status).toBe(1);
    const lines = (second.stdout + second.stderr).split("\n").filter((l) => l !== "" && !l.startsWith("{"));
    expect(lines).toEqual([
      `Port ${port} is already in use (EADDRINUSE on 127.0.0.1, port ${port}): another Toolgate or another program listens there.`,
      `Stop it, or start on a free port: PORT=${Number(port) + 1} npm start`,
    ]);
    await first.stop();
  });

  it("stops with a message naming every bad variable", async () => {
    const env = await freshEnv();
    await expect(startServerProcess({ ...env, PORT: "x", TOOLGATE_LOG_LEVEL: "chatty" })).rejects.toThrow(/PORT[\s\S]*TOOLGATE_LOG_LEVEL|TOOLGATE_LOG_LEVEL[\s\S]*PORT/);
  });
});

describe("toolgate CLI", () => {
  /** The commands in process (src/cli/run.ts), as the spawned entry runs them. */
  async function cli(args: string[], env: Record<string, string>) {
    let stdout = "";
    let stderr = "";
    const status = await runCommand(args, env, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) });
    return { status, stdout, stderr };
  }

  it("migrates, bootstraps a workspace and rotates keys", async () => {
    const env = await freshEnv();
    const migrated = await cli(["migrate"], env);
    expect(migrated.status).toBe(0);
    expect(JSON.parse(migrated.stdout).applied.length).toBeGreaterThan(0);
    expect(JSON.parse((await cli(["migrate"], env)).stdout)).toEqual({ applied: [] });

    const boot = await cli(["bootstrap", "--email", "cli@example.test", "--password", "cli-password-1", "--workspace", "CLI"], env);
    expect(boot.status).toBe(0);
    const out = JSON.parse(boot.stdout);
    expect(Object.keys(out).sort()).toEqual(["user_id", "workspace_id"]);

    // Users are private to one workspace (decision 0017): the same email bootstraps a second,
    // separate account with its own password; the first account is untouched.
    const second = await cli(["bootstrap", "--email", "cli@example.test", "--password", "another-password"], env);
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout)).not.toMatchObject({ user_id: out.user_id });

    const before = JSON.parse((await cli(["keys", "list"], env)).stdout) as { kid: string; alg: string; signing: boolean }[];
    // One signing key per algorithm: ES256 (access, admin, ID tokens) and RS256 (ID tokens).
    expect(before.filter((k) => k.signing).map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    const rotated = JSON.parse((await cli(["keys", "rotate", "--activate-in", "600"], env)).stdout);
    const after = JSON.parse((await cli(["keys", "list"], env)).stdout) as { kid: string; signing: boolean; published: boolean }[];
    const added = after.find((k) => k.kid === rotated.kid)!;
    expect(added).toMatchObject({ signing: false, published: true }); // published before it signs
    const es256Signing = (list: { kid: string; signing: boolean; alg?: string }[]) => list.find((k) => k.signing && k.alg === "ES256")?.kid;
    expect(es256Signing(after)).toBe(es256Signing(before));

    expect((await cli(["bootstrap"], env)).status).toBe(2);
    expect((await cli(["frobnicate"], env)).status).toBe(2);
  });

  it("runs as its own process (smoke: the entry point and its exit status)", async () => {
    const env = await freshEnv();
    const migrated = runCli(["migrate"], env);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout).applied.length).toBeGreaterThan(0);
    expect(runCli(["frobnicate"], env).status).toBe(2);
  });
});

describe("production start (npm run build, node dist/main.js)", () => {
  it("serves from the compiled build, and SIGTERM lets an in-flight request finish before exiting 0", async () => {
    // The build `npm test` made before the suite (its pretest: npm run build). Not rebuilt here: the
    // build empties dist/ first, and test files running at the same time start servers from it.
    if (!existsSync(join(ROOT, "dist/main.js"))) {
      const built = spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs")], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
      expect(built.status, built.stderr).toBe(0);
    }
    const env = await freshEnv();
    const s = await startServerProcess({ ...env, TOOLGATE_ADMIN_EMAIL: "drain@example.test", TOOLGATE_ADMIN_PASSWORD: "drain-password-1" }, ROOT, "compiled");
    servers.push(s);
    const exited = new Promise<number | null>((resolve) => s.child.once("exit", (code) => resolve(code)));

    // A request the server has begun when the signal comes: it answered "100 Continue" to the
    // headers (so the request is in its hands) and has half the body.
    const body = JSON.stringify({ email: "drain@example.test", password: "drain-password-1" });
    let continued = false;
    const inFlight = request(`${s.url}/svc/uflow/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), expect: "100-continue" },
    });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on("response", (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      });
      inFlight.on("error", reject);
    });
    inFlight.on("continue", () => {
      inFlight.write(body.slice(0, 10));
      continued = true;
    });
    inFlight.flushHeaders();
    await eventually(async () => continued, "the held request finished", 30_000);
    s.child.kill("SIGTERM");
    await eventually(async () => s.output().includes("shutting down: draining in-flight requests"), "the drain announced", 30_000);
    // No new connections while draining.
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    inFlight.end(body.slice(10));
    const r = await answer;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).access_token).toBeTypeOf("string");
    expect(await exited).toBe(0);
    expect(s.output()).toContain('"msg":"shut down"');
  });
});
