// Process entry: loadConfig(process.env) -> boot (database, migrations, master key) -> createApp -> listen.
// Operator mistakes (bad variables, database down or missing, port taken) end in a short message
// naming cause and fix (src/startup-errors.ts); SIGTERM/SIGINT drain in-flight requests (./shutdown.ts).
import { loadConfig } from "./config";
import { createLogger } from "./shared/logger";
import { boot } from "./boot";
import { createApp } from "./app";
import { ensureFirstAdmin, type FirstAdmin } from "./first-admin";
import type { Config } from "./config";
import { ServerLockError, sqliteFilePath, takeServerLock } from "./storage";
import { explainListenError, explainStartupError } from "./startup-errors";
import { drainOnSignals } from "./shutdown";
import { awaitGoAhead, isClusterPrimary, runPrimary, workerNumber } from "./cluster";
import { createExpressServer } from "./http-server";

/** DATABASE_URL without its password (start-up output must not print secrets). */
function databaseUrlForHint(url: string): { url: string; hadPassword: boolean } {
  const u = new URL(url);
  const hadPassword = u.password !== "";
  u.password = "";
  return { url: u.toString(), hadPassword };
}

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
      return [
        // The variables only create the first workspace: say so, or a changed password there looks like a broken login.
        ...(config.bootstrapAdmin
          ? [`TOOLGATE_ADMIN_EMAIL and TOOLGATE_ADMIN_PASSWORD are ignored: this database already has a workspace (they only create the first one). Log in with its existing owner.`]
          : []),
        "Log in as an admin with:",
        ...login(`'{"email":"<your email>","password":"<your password>"}'`),
      ];
    case "missing": {
      const db = databaseUrlForHint(config.database.url);
      return [
        "No workspace exists yet. Create the first one from another terminal, with this server's DATABASE_URL and TOOLGATE_MASTER_KEY",
        `(exported in that shell${db.hadPassword ? "; add the database password to the URL or export PGPASSWORD" : ""}); the password is read from standard input, not argv:`,
        `  read -rsp 'Owner password: ' PW && printf %s "$PW" | DATABASE_URL='${db.url}' TOOLGATE_MASTER_KEY="$TOOLGATE_MASTER_KEY" npx toolgate bootstrap --email you@example.com --password-stdin`,
        "or restart this server with TOOLGATE_ADMIN_EMAIL and TOOLGATE_ADMIN_PASSWORD set.",
      ];
    }
  }
}

/** Prints an explained start-up failure and exits; anything unexplained keeps its stack trace. */
function fail(e: unknown): never {
  const explained = explainStartupError(e, process.env);
  if (explained) {
    console.error(explained.message);
    process.exit(explained.status);
  }
  if (e instanceof ServerLockError) {
    console.error(e.message);
    process.exit(2);
  }
  console.error(e);
  process.exit(1);
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // TOOLGATE_WORKERS > 1 (PostgreSQL): this process only supervises the workers (src/cluster.ts).
  if (isClusterPrimary(config)) return runPrimary(config);
  const worker = workerNumber();
  const root = createLogger(config.logLevel);
  const logger = worker === undefined ? root : root.child({ worker });
  // SQLite serves one server process (docs/decisions/0001-per-entry-caches.md): a second refuses to start.
  if (config.database.kind === "sqlite") {
    const releaseLock = takeServerLock(sqliteFilePath(config.database.url));
    process.on("exit", () => releaseLock());
  }
  await awaitGoAhead();
  const { db, masterKey, masterKeyCreatedAt, appliedMigrations } = await boot(config);
  if (masterKeyCreatedAt) logger.info({ path: masterKeyCreatedAt }, "generated a new master key (keep it with the database)");
  if (appliedMigrations.length) logger.info({ migrations: appliedMigrations }, "applied database migrations");

  const toolgate = await createApp({ config, db, masterKey, logger });
  const firstAdmin = await ensureFirstAdmin(config, toolgate.services.tenancy);

  await toolgate.start();

  const { server, serve } = createExpressServer();
  serve(toolgate.app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch(async (e: NodeJS.ErrnoException) => {
    const explained = explainListenError(e, config.port, config.host);
    if (!explained) throw e;
    console.error(explained);
    await toolgate.close();
    await db.$disconnect();
    process.exit(1);
  });
  // Under TOOLGATE_WORKERS the primary says where it listens; worker 1 created the first admin.
  if (worker === undefined) console.log([`Toolgate is listening on ${config.publicUrl} (database: ${config.database.kind})`, ...loginHelp(config, firstAdmin)].join("\n"));
  else if (worker === 1) console.log(loginHelp(config, firstAdmin).join("\n"));

  drainOnSignals(server, logger, async () => {
    await toolgate.close();
    await db.$disconnect();
  });
}

main().catch(fail);
