// Applies the SQL migrations shipped in prisma/migrations/<provider>/ to the database, offline.
// Prisma's own `migrate deploy` needs a native engine that cannot be downloaded on every machine
// (docs/migrations.md), so Toolgate applies its migrations itself: each folder once, in name
// order, inside a transaction, recorded in _toolgate_migrations with a checksum so an edited
// migration is detected instead of silently skipped.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Db } from "./prisma";

export const MIGRATIONS_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../prisma/migrations");

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function loadMigrations(kind: "sqlite" | "postgresql", root = MIGRATIONS_ROOT): Migration[] {
  const dir = join(root, kind);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** Splits generated DDL into statements (Prisma's scripts end each statement with `;` and a newline). */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\r?\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter((s) => s.length > 0);
}

// An arbitrary constant: every instance migrating one PostgreSQL database takes the same lock.
export const PG_ADVISORY_LOCK_KEY = 7_361_294_017;

/** Another runner (an instance starting, `toolgate migrate`, the migration API) holds the lock now. */
export class MigrationLockedError extends Error {}

export interface MigrationState {
  name: string;
  /** applied; pending (shipped, not applied yet); changed (applied, but its file no longer matches: start-up refuses). */
  state: "applied" | "pending" | "changed";
  applied_at: string | null;
}

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_toolgate_migrations" ("name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`;

/** Every shipped migration with its state on this database, in the order they apply. */
export async function migrationStates(db: Db, kind: "sqlite" | "postgresql", root = MIGRATIONS_ROOT): Promise<MigrationState[]> {
  await db.$executeRawUnsafe(MIGRATIONS_TABLE);
  const rows = await db.$queryRawUnsafe<Array<{ name: string; checksum: string; applied_at: string }>>(`SELECT "name", "checksum", "applied_at" FROM "_toolgate_migrations"`);
  const applied = new Map(rows.map((r) => [r.name, r]));
  return loadMigrations(kind, root).map((m) => {
    const row = applied.get(m.name);
    if (!row) return { name: m.name, state: "pending", applied_at: null };
    return { name: m.name, state: row.checksum === m.checksum ? "applied" : "changed", applied_at: row.applied_at };
  });
}

/**
 * Applies the pending migrations; returns their names. On PostgreSQL every migration's transaction
 * takes one advisory lock, so instances migrating one database apply each migration once:
 * `wait` (start-up, the CLI) queues behind another runner; otherwise (the migration API) a held
 * lock is MigrationLockedError at once, a clear answer rather than a request hanging.
 */
export async function migrate(db: Db, kind: "sqlite" | "postgresql", root = MIGRATIONS_ROOT, opts: { wait: boolean } = { wait: true }): Promise<string[]> {
  const migrations = loadMigrations(kind, root);
  if (migrations.length === 0) throw new Error(`no migrations found for ${kind} under ${root}`);
  await db.$executeRawUnsafe(MIGRATIONS_TABLE);
  const applied: string[] = [];
  for (const m of migrations) {
    const ran = await db.$transaction(
      async (tx) => {
        if (kind === "postgresql") {
          if (opts.wait) await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${PG_ADVISORY_LOCK_KEY})`);
          else {
            const [{ locked }] = await tx.$queryRawUnsafe<Array<{ locked: boolean }>>(`SELECT pg_try_advisory_xact_lock(${PG_ADVISORY_LOCK_KEY}) AS "locked"`);
            if (!locked) throw new MigrationLockedError("another instance is applying migrations to this database now; ask again when it has finished");
          }
        }
        const rows = await tx.$queryRawUnsafe<{ checksum: string }[]>(
          `SELECT "checksum" FROM "_toolgate_migrations" WHERE "name" = $1`.replace("$1", kind === "sqlite" ? "?" : "$1"),
          m.name,
        );
        if (rows.length > 0) {
          if (rows[0]!.checksum !== m.checksum) {
            throw new Error(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
          }
          return false;
        }
        for (const statement of splitStatements(m.sql)) await tx.$executeRawUnsafe(statement);
        await tx.$executeRawUnsafe(
          `INSERT INTO "_toolgate_migrations" ("name", "checksum", "applied_at") VALUES (${kind === "sqlite" ? "?, ?, ?" : "$1, $2, $3"})`,
          m.name,
          m.checksum,
          new Date().toISOString(),
        );
        return true;
      },
      { timeout: 60_000, maxWait: 60_000 },
    );
    if (ran) applied.push(m.name);
  }
  return applied;
}
