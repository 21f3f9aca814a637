// A fresh, real database per test file: a temporary SQLite file by default, or, when
// TEST_DATABASE_URL is set (CI sets it), a uniquely named PostgreSQL database on that server,
// dropped afterwards. Files run in parallel without seeing each other's rows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";

export interface TestDatabase {
  kind: "sqlite" | "postgresql";
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolgate-test-"));
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    return {
      kind: "sqlite",
      url: `file:${join(dataDir, "toolgate.db")}`,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const pgDb = await createPostgresDatabase(server, "toolgate_test");
  return {
    kind: "postgresql",
    url: pgDb.url,
    dataDir,
    drop: async () => {
      await pgDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A uniquely named database (`<prefix>_<random>`) on the PostgreSQL server at `server`; drop() removes it. */
export async function createPostgresDatabase(server: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A fresh database and the environment a spawned server or the CLI runs on it with (a master key
 * on PostgreSQL, where it is required); `dbs` collects the databases for the caller to drop.
 */
export async function freshEnv(dbs: TestDatabase[]): Promise<Record<string, string>> {
  const db = await createTestDatabase();
  dbs.push(db);
  const env: Record<string, string> = { TOOLGATE_DATA_DIR: db.dataDir, DATABASE_URL: db.url };
  if (db.kind === "postgresql") env.TOOLGATE_MASTER_KEY = randomBytes(32).toString("hex");
  return env;
}
