// Process entry: loadConfig(process.env) -> boot (database, migrations, master key) -> createApp -> listen.
import { createServer } from "node:http";
import { ConfigError, loadConfig } from "./config";
import { createLogger } from "./shared/logger";
import { boot } from "./boot";
import { createApp } from "./app";
import { ensureFirstAdmin, type FirstAdmin } from "./first-admin";
import type { Config } from "./config";
import { ServerLockError, sqliteFilePath, takeServerLock } from "./storage";
import { awaitGoAhead, isClusterPrimary, runPrimary, workerNumber } from "./cluster";

function loginHelp(config: Config, first: FirstAdmin): string[] {
  const login = (body: string) => [
    `  curl -s -X POST ${config.publicUrl}/svc/uflow/auth/login -H 'content-type: application/json' \\`,
    `    -d ${body}`,
  ];
  switch (first.kind) {
    case "generated":
      return [
        `Created workspace ${first.workspace_id} with owner ${first.email}.`,
        `Its password is in ${first.credentialsFile} (readable by you only). Log in with:`,
        ...login(`@${first.credentialsFile}`),
      ];
    case "from_env":
      return [`Created workspace ${first.workspace_id} with owner ${first.email}.`, "Log in with:", ...login(`'{"email":"${first.email}","password":"<TOOLGATE_ADMIN_PASSWORD>"}'`)];
    case "none_needed":
      return ["Log in as an admin with:", ...login(`'{"email":"<your email>","password":"<your password>"}'`)];
    case "missing":
      return [
        "No workspace exists yet. Create the first one with either:",
        "  TOOLGATE_ADMIN_EMAIL=you@example.com TOOLGATE_ADMIN_PASSWORD='a long password' npm start",
        "  npm run toolgate -- bootstrap --email you@example.com --password 'a long password'",
      ];
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  // TOOLGATE_WORKERS > 1 (PostgreSQL): this process only supervises the workers (src/cluster.ts).
  if (isClusterPrimary(config)) return runPrimary(config);
  const worker = workerNumber();
  const root = createLogger(config.logLevel);
  const logger = worker === undefined ? root : root.child({ worker });
  // SQLite serves one server process (docs/decisions/0001-per-entry-caches.md): a second refuses to start.
  let releaseLock = () => {};
  if (config.database.kind === "sqlite") {
    try {
      releaseLock = takeServerLock(sqliteFilePath(config.database.url));
    } catch (e) {
      if (e instanceof ServerLockError) {
        console.error(e.message);
        process.exit(2);
      }
      throw e;
    }
    process.on("exit", () => releaseLock());
  }
  await awaitGoAhead();
  const { db, masterKey, masterKeyCreatedAt, appliedMigrations } = await boot(config);
  if (masterKeyCreatedAt) logger.info({ path: masterKeyCreatedAt }, "generated a new master key (keep it with the database)");
  if (appliedMigrations.length) logger.info({ migrations: appliedMigrations }, "applied database migrations");

  const toolgate = await createApp({ config, db, masterKey, logger });
  const firstAdmin = await ensureFirstAdmin(config, toolgate.services.tenancy);
  await toolgate.start();

  const server = createServer(toolgate.app);
  server.keepAliveTimeout = 65_000;
  server.listen(config.port, config.host, () => {
    // Under TOOLGATE_WORKERS the primary says where it listens; worker 1 created the first admin.
    if (worker === undefined) console.log([`Toolgate is listening on ${config.publicUrl} (database: ${config.database.kind})`, ...loginHelp(config, firstAdmin)].join("\n"));
    else if (worker === 1) console.log(loginHelp(config, firstAdmin).join("\n"));
  });

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    server.close(() => {
      void toolgate.close().then(() => db.$disconnect()).then(() => process.exit(0));
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
