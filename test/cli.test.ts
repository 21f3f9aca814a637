// The `toolgate` command line as an operator meets it (src/cli/run.ts, in process, on a real
// database): help for every group and command, flag-named errors, the password kept out of argv,
// `keygen`, the same field names in `keys rotate` and `keys list`, and database mistakes explained
// in two lines. Exact texts: these are what a person reads.
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshEnv as createEnv, type TestDatabase } from "./helpers/database";
import { runCli } from "../src/cli/run";
import { COMMANDS, GROUPS } from "../src/cli/commands";
import { decodeMasterKey } from "../src/config";
import { createPrismaClient } from "../src/storage";
import { verifyPassword } from "../src/shared/crypto";

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

const freshEnv = () => createEnv(dbs);

async function cli(args: string[], env: Record<string, string> = {}, stdin?: string) {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, env, {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stderr += `${t}\n`),
    ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
  });
  return { status, stdout, stderr };
}

describe("help", () => {
  it("lists every command, and every group answers with its own commands instead of 'unknown command'", async () => {
    const all = await cli(["help"]);
    expect(all.status).toBe(0);
    for (const c of COMMANDS) expect(all.stdout).toContain(`  ${c.name}`);
    expect((await cli([])).stdout).toBe(all.stdout);
    expect((await cli(["--help"])).stdout).toBe(all.stdout);

    for (const group of Object.keys(GROUPS)) {
      const g = await cli([group]);
      expect(g.status, group).toBe(0);
      expect(g.stdout).toMatch(new RegExp(`^usage: toolgate ${group} <command> \\[options\\]`));
      const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
      expect(members.length).toBeGreaterThan(0);
      for (const c of members) expect(g.stdout).toContain(`  ${c.name}`);
      expect((await cli([group, "--help"])).stdout).toBe(g.stdout);
      expect((await cli(["help", group])).stdout).toBe(g.stdout);
    }
    expect((await cli(["keys"])).stdout).toContain("  keys rotate [--activate-in SECONDS]");
  });

  it("has help for every command, and --help runs nothing", async () => {
    for (const c of COMMANDS) {
      const r = await cli([...c.name.split(" "), "--help"], { DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" });
      expect(r.status, c.name).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(`usage: toolgate ${c.name}${c.synopsis ? ` ${c.synopsis}` : ""}`);
    }
  });

  it("names an unknown command and shows the list (exit 2)", async () => {
    const r = await cli(["frobnicate"]);
    expect(r.status).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("unknown command: toolgate frobnicate");
    const k = await cli(["keys", "frob"]);
    expect(k.status).toBe(2);
    expect(k.stderr.split("\n").slice(0, 3)).toEqual(["unknown command: toolgate keys frob", "", "usage: toolgate keys <command> [options]   (signing keys (ES256: access, admin and ID tokens; RS256: ID tokens))"]);
  });
});

describe("errors name the flag", () => {
  it.each([
    [["bootstrap", "--email"], "bootstrap: --email needs a value (see toolgate bootstrap --help)"],
    [["bootstrap", "--mail", "a@example.com"], "bootstrap: unknown option --mail (see toolgate bootstrap --help)"],
    [["bootstrap", "--password-stdin=yes"], "bootstrap: --password-stdin takes no value (see toolgate bootstrap --help)"],
    [["bootstrap", "extra"], "bootstrap: unexpected argument extra (see toolgate bootstrap --help)"],
    [["bootstrap", "--password", "long-enough-1"], "bootstrap: --email is required"],
    [["bootstrap", "--email", "not-an-email", "--password", "long-enough-1"], "bootstrap: --email: Invalid email address"],
    [["bootstrap", "--email", "a@example.com", "--password", "short"], "bootstrap: --password: must be at least 8 characters"],
    [["bootstrap", "--email", "a@example.com"], "bootstrap: needs a password: --password-stdin (read from standard input), TOOLGATE_PASSWORD=... or --password P"],
    [["keys", "rotate", "--activate-in", "soon"], 'keys rotate: --activate-in must be a whole number of seconds from 0 to 86400 (got "soon")'],
    [["keys", "rotate", "--activate-in", "86401"], 'keys rotate: --activate-in must be a whole number of seconds from 0 to 86400 (got "86401")'],
  ])("%j", async (args, message) => {
    const r = await cli(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`${message}\n`);
  });

  it("refuses two password sources and an empty standard input", async () => {
    const both = await cli(["bootstrap", "--email", "a@example.com", "--password", "long-enough-1", "--password-stdin"], {}, "other-password");
    expect(both.stderr).toBe("bootstrap: give the password one way only: --password-stdin, --password or TOOLGATE_PASSWORD\n");
    const empty = await cli(["bootstrap", "--email", "a@example.com", "--password-stdin"], {}, "\n");
    expect(empty.stderr).toBe("bootstrap: --password-stdin: standard input was empty\n");
  });
});

describe("commands", () => {
  it("keygen prints a master key the server accepts, without touching a database", async () => {
    const r = await cli(["keygen"], { DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" });
    expect(r.status).toBe(0);
    const key = r.stdout.trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(decodeMasterKey(key)).toHaveLength(32);
    expect((await cli(["keygen"])).stdout.trim()).not.toBe(key);
  });

  it("bootstrap reads the password from standard input or TOOLGATE_PASSWORD, never needing argv", async () => {
    const env = await freshEnv();
    const viaStdin = await cli(["bootstrap", "--email", "stdin@example.test", "--password-stdin", "--workspace", "One"], env, "stdin-password-1\n");
    expect(viaStdin.stderr).toBe("");
    expect(Object.keys(JSON.parse(viaStdin.stdout)).sort()).toEqual(["user_id", "workspace_id"]);
    // The trailing newline was not part of the password.
    const db = await createPrismaClient({ kind: env.DATABASE_URL!.startsWith("postgres") ? "postgresql" : "sqlite", url: env.DATABASE_URL! });
    const stored = await db.user.findFirstOrThrow({ where: { email: "stdin@example.test" } });
    await db.$disconnect();
    expect(await verifyPassword("stdin-password-1", stored.passwordHash!)).toBe(true);
    // The same email again is a second workspace with its own account (users are private to a workspace, decision 0017).
    const second = await cli(["bootstrap", "--email", "stdin@example.test"], { ...env, TOOLGATE_PASSWORD: "another-password" });
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout).user_id).not.toBe(JSON.parse(viaStdin.stdout).user_id);
    const viaEnv = await cli(["bootstrap", "--email", "env@example.test"], { ...env, TOOLGATE_PASSWORD: "env-password-1" });
    expect(viaEnv.status).toBe(0);
  });

  it("keys rotate and keys list use the same field name, activates_at", async () => {
    const env = await freshEnv();
    const rotated = JSON.parse((await cli(["keys", "rotate", "--activate-in", "600"], env)).stdout);
    expect(Object.keys(rotated).sort()).toEqual(["activates_at", "kid"]);
    const listed = JSON.parse((await cli(["keys", "list"], env)).stdout) as Record<string, unknown>[];
    for (const k of listed) expect(Object.keys(k).sort()).toEqual(["activates_at", "alg", "kid", "published", "signing"]);
    expect(listed.find((k) => k.kid === rotated.kid)).toMatchObject({ alg: "ES256", activates_at: rotated.activates_at, signing: false, published: true });
    // The RS256 key of ID tokens rotates with the same command.
    const rsa = JSON.parse((await cli(["keys", "rotate", "--alg", "RS256", "--activate-in", "0"], env)).stdout);
    const after = JSON.parse((await cli(["keys", "list"], env)).stdout) as Record<string, unknown>[];
    expect(after.find((k) => k.kid === rsa.kid)).toMatchObject({ alg: "RS256", signing: true, published: true });
    expect(after.filter((k) => k.alg === "RS256" && k.signing)).toHaveLength(1);
    const bad = await cli(["keys", "rotate", "--alg", "HS256"], env);
    expect(bad.stderr).toContain('keys rotate: --alg must be one of ES256, RS256 (got "HS256")');
  });
});

describe("database mistakes, in two lines", () => {
  const key = randomBytes(32).toString("hex");

  it("an unreachable PostgreSQL server", async () => {
    const r = await cli(["migrate"], { DATABASE_URL: "postgresql://postgres:hunter2@127.0.0.1:1/toolgate", TOOLGATE_MASTER_KEY: key });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "Cannot reach the PostgreSQL server at 127.0.0.1:1 (DATABASE_URL=postgresql://postgres:***@127.0.0.1:1/toolgate).\n" +
        "Start PostgreSQL there, or fix the host and port in DATABASE_URL.\n",
    );
  });

  const server = process.env.TEST_DATABASE_URL;
  it.skipIf(!server)("a database that does not exist, and a role that does not exist (PostgreSQL)", async () => {
    const u = new URL(server!);
    const at = `${u.hostname}:${u.port || "5432"}`;
    const missing = new URL(server!);
    missing.pathname = "/toolgate_no_such_database";
    const r = await cli(["keys", "list"], { DATABASE_URL: missing.toString(), TOOLGATE_MASTER_KEY: key });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `The database "toolgate_no_such_database" does not exist on the PostgreSQL server at ${at}.\n` +
        `Create it (createdb -h ${u.hostname} -p ${u.port || "5432"} -U ${decodeURIComponent(u.username) || "postgres"} toolgate_no_such_database), or fix the database name in DATABASE_URL.\n`,
    );
    const nobody = new URL(server!);
    nobody.username = "toolgate_no_such_role";
    nobody.password = "";
    const role = await cli(["migrate"], { DATABASE_URL: nobody.toString(), TOOLGATE_MASTER_KEY: key });
    expect(role.status).toBe(1);
    expect(role.stderr).toBe(
      `PostgreSQL at ${at} refused the login of "toolgate_no_such_role": role "toolgate_no_such_role" does not exist.\n` +
        "Fix the user and password in DATABASE_URL (postgresql://USER:PASSWORD@HOST:PORT/DATABASE), or create that role.\n",
    );
  });

  it("a data folder that cannot be created", async () => {
    const env = await freshEnv();
    const file = join(env.TOOLGATE_DATA_DIR!, "a-file");
    writeFileSync(file, "");
    const r = await cli(["keys", "list"], { TOOLGATE_DATA_DIR: join(file, "data") });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `Cannot write ${join(file, "data")} (ENOTDIR): the data folder must be writable by this user.\n` +
        "Fix its permissions, or point TOOLGATE_DATA_DIR (and DATABASE_URL=file:...) at a writable folder.\n",
    );
  });

  it("a bad variable names it (exit 2)", async () => {
    const r = await cli(["migrate"], { DATABASE_URL: "mysql://localhost/x" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("Invalid configuration:\n  - DATABASE_URL: must start with file: or postgresql://\n");
  });
});
