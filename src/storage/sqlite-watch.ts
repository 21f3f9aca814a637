// SQLite serves one server process (docs/decisions/0001-per-entry-caches.md). Two things follow:
//
// 1. A second server on the same file refuses to start (serverLock): a lock file next to the
//    database holds the owner's pid; a lock left by a dead process (kill -9) is taken over.
// 2. The CLI may still write the file while the server runs (bootstrap, keys rotate). The server
//    notices with `PRAGMA data_version`, which changes only when ANOTHER connection committed to
//    the file (https://sqlite.org/pragma.html#pragma_data_version): one cheap statement per poll,
//    and when it moves every cache is dropped (such writes are rare; what they touched is unknown).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import type { ChangeBus } from "./change-bus";

export const SQLITE_WATCH_QUERY = "PRAGMA data_version";

interface RawQuery {
  $queryRawUnsafe<T = unknown>(sql: string): Promise<T>;
}

export class SqliteChangeWatch {
  private timer: NodeJS.Timeout | undefined;
  private last: bigint | number | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: RawQuery,
    private readonly bus: ChangeBus,
  ) {}

  private async version(): Promise<bigint | number | undefined> {
    const rows = await this.db.$queryRawUnsafe<Array<{ data_version: bigint | number }>>(SQLITE_WATCH_QUERY);
    return rows[0]?.data_version;
  }

  /** One check; resolves after the caches were dropped if another process wrote. */
  async check(): Promise<void> {
    this.running ??= (async () => {
      const v = await this.version();
      const moved = this.last !== undefined && v !== this.last;
      this.last = v;
      if (moved) await this.bus.reset();
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  async start(intervalMs: number, onError: (e: unknown) => void): Promise<void> {
    await this.check();
    this.timer = setInterval(() => this.check().catch(onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

export class ServerLockError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the one-server lock of a SQLite file; returns its release. Throws ServerLockError naming
 * the running server when another live process holds it.
 */
export function takeServerLock(databaseFile: string): () => void {
  const path = `${databaseFile}.server-lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new ServerLockError(
          `another Toolgate server (pid ${owner}) already serves ${databaseFile}. SQLite serves one server process: stop it first, ` +
            `or run several instances on PostgreSQL (DATABASE_URL=postgresql://...). If no such server runs, delete ${path}.`,
        );
      }
      rmSync(path, { force: true }); // left by a process that died
    }
  }
  throw new ServerLockError(`could not take the server lock ${path}`);
}
