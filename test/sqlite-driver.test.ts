// The embedded database's driver (src/storage/sqlite-driver.ts): libsql's prebuilt N-API binary,
// installed by npm as an optional dependency per platform. When that binary is not there (npm told
// to skip optional dependencies, node_modules copied from another machine), the server and the CLI
// stop with two lines naming the cause and the fix instead of libsql's stack trace.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./helpers/process";
import { explainDriverLoadFailure, SqliteDriverError } from "../src/storage/sqlite-driver";
import { explainStartupError } from "../src/startup-errors";
import { createPrismaClient, migrate } from "../src/storage";
import { BUSY_TIMEOUT_MS } from "../src/storage/sqlite-adapter";

const require = createRequire(import.meta.url);

/** The platform package libsql loads here (e.g. @libsql/linux-x64-gnu), read from its own stack of requires. */
function platformPackage(): string {
  const libsqlDir = dirname(require.resolve("libsql"));
  const found = readdirSync(join(ROOT, "node_modules/@libsql")).filter((n) => /^(linux|darwin|win32)-/.test(n));
  expect(found.length).toBeGreaterThan(0);
  expect(libsqlDir).toBe(join(ROOT, "node_modules/libsql"));
  return found[0]!;
}

describe("the embedded database driver", () => {
  it("loads on this Node without anything compiled at install (a prebuilt N-API binary)", () => {
    const r = spawnSync(process.execPath, ["-e", `const D = require("libsql"); const db = new D(":memory:"); console.log(db.prepare("select sqlite_version() as v").get().v)`], { cwd: ROOT, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toMatch(/^3\.\d+\.\d+$/);
    // Nothing was built from source: no build folder, the binary comes from the platform package.
    expect(readdirSync(join(ROOT, "node_modules/libsql"))).not.toContain("build");
    expect(readdirSync(join(ROOT, "node_modules/@libsql", platformPackage()))).toContain("index.node");
  });
});

describe("a system whose driver binary is missing", () => {
  // A copy of the installation as `npm install --omit=optional` leaves it: every package but the
  // platform binaries (symlinked, so cheap), with libsql itself copied so that it resolves its
  // binary from this folder rather than from the real node_modules.
  const folder = mkdtempSync(join(tmpdir(), "toolgate-driver-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const modules = join(folder, "node_modules");

  function installWithoutOptional(): void {
    mkdirSync(join(modules, "@libsql"), { recursive: true });
    for (const name of readdirSync(join(ROOT, "node_modules"))) {
      if (name === "@libsql" || name === "libsql" || name === ".bin") continue;
      symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
    }
    for (const name of readdirSync(join(ROOT, "node_modules/@libsql"))) {
      if (/^(linux|darwin|win32)-/.test(name)) continue; // the optional platform binaries
      symlinkSync(join(ROOT, "node_modules/@libsql", name), join(modules, "@libsql", name));
    }
    cpSync(join(ROOT, "node_modules/libsql"), join(modules, "libsql"), { recursive: true, dereference: true });
    cpSync(join(ROOT, "dist"), join(folder, "dist"), { recursive: true });
    symlinkSync(join(ROOT, "package.json"), join(folder, "package.json"));
  }

  it("stops the server with two lines naming the missing binary and the command that fixes it", () => {
    installWithoutOptional();
    const r = spawnSync(process.execPath, [join(folder, "dist/main.js")], {
      cwd: folder,
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1", TOOLGATE_DATA_DIR: join(folder, "data"), TOOLGATE_LOG_LEVEL: "silent" },
    });
    const pkg = platformPackage();
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr.trimEnd().split("\n") }).toEqual({
      status: 1,
      stdout: "",
      stderr: [
        `The embedded database driver has no binary for this system: @libsql/${pkg} is not installed (npm skipped optional dependencies, or node_modules was copied from another machine).`,
        "Reinstall the dependencies on this machine with optional ones included: rm -rf node_modules && npm install (not --omit=optional), or use PostgreSQL (DATABASE_URL=postgresql://...).",
      ],
    });
  });

  it("explains any other load failure in two lines too, and start-up prints it without a stack trace", () => {
    const dlopen = Object.assign(new Error("/x/index.node: invalid ELF header\n    at Module._extensions..node"), { code: "ERR_DLOPEN_FAILED" });
    const text = explainDriverLoadFailure(dlopen);
    expect(text.split("\n")).toEqual([
      `The embedded database driver (libsql) could not be loaded on Node ${process.version} (${process.platform}-${process.arch}): /x/index.node: invalid ELF header`,
      "Reinstall the dependencies on this machine: rm -rf node_modules && npm install, or use PostgreSQL (DATABASE_URL=postgresql://...).",
    ]);
    expect(explainStartupError(new SqliteDriverError(text), {})).toEqual({ message: text, status: 1 });
  });
});

describe("the adapter's one connection", () => {
  // src/storage/sqlite-adapter.ts: a transaction holds the connection; a statement outside it waits
  // and never runs inside it (it cannot see, or be rolled back with, uncommitted rows).
  const folder = mkdtempSync(join(tmpdir(), "toolgate-adapter-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("keeps statements outside a transaction out of it, and its settings across transactions", async () => {
    const db = await createPrismaClient({ kind: "sqlite", url: `file:${join(folder, "t.db")}` });
    try {
      await migrate(db, "sqlite");
      let reached!: () => void;
      const inside = new Promise<void>((r) => (reached = r));
      let finish!: () => void;
      const held = new Promise<void>((r) => (finish = r));
      const tx = db.$transaction(async (t) => {
        await t.workspace.create({ data: { id: "00000000-0000-4000-8000-000000000001", name: "Uncommitted" } });
        reached();
        await held;
        throw new Error("roll back");
      });
      await inside;
      const outside = db.workspace.findMany({ where: { name: "Uncommitted" } });
      finish();
      await expect(tx).rejects.toThrow("roll back");
      expect(await outside).toEqual([]);
      // Connection settings survive transactions (one connection for the client's life).
      const [{ timeout }] = await db.$queryRawUnsafe<Array<{ timeout: bigint | number }>>("PRAGMA busy_timeout");
      expect(Number(timeout)).toBe(BUSY_TIMEOUT_MS);
      const [{ foreign_keys }] = await db.$queryRawUnsafe<Array<{ foreign_keys: bigint | number }>>("PRAGMA foreign_keys");
      expect(Number(foreign_keys)).toBe(1);
      // WAL with synchronous NORMAL (1): the durability of the previous driver, no fsync per commit.
      const [{ journal_mode }] = await db.$queryRawUnsafe<Array<{ journal_mode: string }>>("PRAGMA journal_mode");
      expect(journal_mode).toBe("wal");
      const [{ synchronous }] = await db.$queryRawUnsafe<Array<{ synchronous: bigint | number }>>("PRAGMA synchronous");
      expect(Number(synchronous)).toBe(1);
    } finally {
      await db.$disconnect();
    }
  });
});
