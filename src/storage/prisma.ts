// Prisma client factory: the adapter is chosen from DATABASE_URL. Both providers' clients are
// generated from the same schema (scripts/prisma-generate.mjs) and expose the same model API,
// so the rest of the code uses the SQLite client's types for both.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { PrismaClient } from "../generated/sqlite/client";

export type Db = PrismaClient;
/** A transaction client: what `db.$transaction(async (tx) => ...)` hands to its callback. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
/** Either the root client or a transaction client; services accept both. */
export type DbOrTx = Db | Tx;

export interface DatabaseTarget {
  kind: "sqlite" | "postgresql";
  url: string;
}

/** Resolves `file:relative/path.db` against the working directory and ensures its folder exists. */
export function sqliteFilePath(url: string): string {
  const path = resolve(url.replace(/^file:/, "").replace(/\?.*$/, ""));
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return path;
}

export async function createPrismaClient(target: DatabaseTarget): Promise<Db> {
  if (target.kind === "sqlite") {
    const [{ PrismaClient: SqliteClient }, { PrismaBetterSqlite3 }] = await Promise.all([
      import("../generated/sqlite/client"),
      import("@prisma/adapter-better-sqlite3"),
    ]);
    const adapter = new PrismaBetterSqlite3({ url: `file:${sqliteFilePath(target.url)}` });
    const client = new SqliteClient({ adapter });
    // WAL lets readers proceed during a write; busy_timeout waits instead of failing on a lock.
    await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await client.$queryRawUnsafe("PRAGMA busy_timeout = 5000");
    await client.$queryRawUnsafe("PRAGMA foreign_keys = ON");
    return client;
  }
  const [{ PrismaClient: PgClient }, { PrismaPg }] = await Promise.all([import("../generated/pg/client"), import("@prisma/adapter-pg")]);
  const adapter = new PrismaPg({ connectionString: target.url });
  return new PgClient({ adapter }) as unknown as Db;
}
