// The server and the CLI as a new user runs them: real processes, real database, real HTTP.
import { afterAll, describe, expect, it, vi } from "vitest";

// Each case starts real processes (tsx compiles the app at start): give them room on a busy machine.
vi.setConfig({ testTimeout: 180_000 });
import { statSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { runCli, startServerProcess, type RunningServer } from "./helpers/process";
import { runCli as runCommand } from "../src/cli/run";

const dbs: TestDatabase[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dbs) await d.drop();
});

async function freshEnv(): Promise<Record<string, string>> {
  const db = await createTestDatabase();
  dbs.push(db);
  const env: Record<string, string> = { TOOLGATE_DATA_DIR: db.dataDir, DATABASE_URL: db.url };
  if (db.kind === "postgresql") env.TOOLGATE_MASTER_KEY = randomBytes(32).toString("hex");
  return env;
}

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

    const before = JSON.parse((await cli(["keys", "list"], env)).stdout) as { kid: string; signing: boolean }[];
    expect(before.filter((k) => k.signing)).toHaveLength(1);
    const rotated = JSON.parse((await cli(["keys", "rotate", "--activate-in", "600"], env)).stdout);
    const after = JSON.parse((await cli(["keys", "list"], env)).stdout) as { kid: string; signing: boolean; published: boolean }[];
    const added = after.find((k) => k.kid === rotated.kid)!;
    expect(added).toMatchObject({ signing: false, published: true }); // published before it signs
    expect(after.find((k) => k.signing)?.kid).toBe(before.find((k) => k.signing)?.kid);

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
