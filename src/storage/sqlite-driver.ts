// The embedded database's driver: Prisma's libSQL adapter (@prisma/adapter-libsql) over libsql, a
// SQLite fork whose Node binding is an N-API addon that npm installs prebuilt, per platform, as an
// optional dependency (@libsql/linux-x64-gnu, @libsql/darwin-arm64, ...). Nothing is compiled at
// install and one binary serves every Node version (N-API is ABI-stable), which is why it replaced
// better-sqlite3 (docs/decisions/0027-embedded-database-driver.md).
//
// What can still go wrong is that the binary for this system is not there: npm was told to skip
// optional dependencies, or node_modules was copied from another machine (another OS, CPU or
// libc). libsql then throws a 14-line stack trace from inside its require; this module loads it
// first and turns the failure into two lines naming the cause and the command that fixes it.
import { createRequire } from "node:module";

export class SqliteDriverError extends Error {}

const REINSTALL = "rm -rf node_modules && npm install";
const OR_POSTGRES = "or use PostgreSQL (DATABASE_URL=postgresql://...)";

/** Two lines (cause, fix) for an error thrown while loading libsql's native part. */
export function explainDriverLoadFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException | null;
  const message = String(err?.message ?? e).split("\n")[0]!;
  const missing = err?.code === "MODULE_NOT_FOUND" ? /Cannot find module '(@libsql\/[^']+)'/.exec(message)?.[1] : undefined;
  if (missing) {
    return (
      `The embedded database driver has no binary for this system: ${missing} is not installed (npm skipped optional dependencies, or node_modules was copied from another machine).\n` +
      `Reinstall the dependencies on this machine with optional ones included: ${REINSTALL} (not --omit=optional), ${OR_POSTGRES}.`
    );
  }
  return `The embedded database driver (libsql) could not be loaded on Node ${process.version} (${process.platform}-${process.arch}): ${message}\nReinstall the dependencies on this machine: ${REINSTALL}, ${OR_POSTGRES}.`;
}

/** Loads libsql's native binding now (start-up), throwing SqliteDriverError with the two lines. */
export function loadSqliteDriver(): void {
  try {
    createRequire(import.meta.url)("libsql");
  } catch (e) {
    throw new SqliteDriverError(explainDriverLoadFailure(e));
  }
}
