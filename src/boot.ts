// Shared start-up steps of the server and the CLI: open the database chosen by DATABASE_URL,
// apply the shipped migrations (offline), and load the master key.
import type { Config } from "./config";
import { createPrismaClient, migrate, type Db } from "./storage";
import { loadOrCreateMasterKey } from "./storage/master-key";

export interface Booted {
  db: Db;
  masterKey: Buffer;
  masterKeyCreatedAt?: string;
  appliedMigrations: string[];
}

export async function boot(config: Config): Promise<Booted> {
  const { key, created, path } = loadOrCreateMasterKey(config.masterKey, config.dataDir);
  const db = await createPrismaClient(config.database);
  const appliedMigrations = await migrate(db, config.database.kind);
  return { db, masterKey: key, masterKeyCreatedAt: created ? path : undefined, appliedMigrations };
}
