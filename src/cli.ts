// `toolgate` command line: migrate, bootstrap a workspace, rotate signing keys.
// Reads the same environment as the server (DATABASE_URL, TOOLGATE_DATA_DIR, TOOLGATE_MASTER_KEY).
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config";
import { boot } from "./boot";
import { createLogger } from "./shared/logger";
import { createServices } from "./app";

const USAGE = `usage: toolgate <command> [options]

commands:
  migrate                                   apply pending database migrations
  bootstrap --email E --password P [--workspace NAME]
                                            create a workspace with E as its owner; prints
                                            {"workspace_id": ..., "user_id": ...}
  keys rotate [--activate-in SECONDS]       add a signing key: published now, signing after
                                            SECONDS (default 300); prints {"kid", "activates_at"}
  keys list                                 list signing keys and their schedule

environment: DATABASE_URL, TOOLGATE_DATA_DIR, TOOLGATE_MASTER_KEY (as for the server)`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, sub] = argv;
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return;
  }
  let config;
  try {
    config = loadConfig({ ...process.env, TOOLGATE_ADMIN_EMAIL: undefined, TOOLGATE_ADMIN_PASSWORD: undefined });
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  const booted = await boot(config);
  try {
    if (command === "migrate") {
      console.log(JSON.stringify({ applied: booted.appliedMigrations }));
      return;
    }
    const services = await createServices({ config, db: booted.db, masterKey: booted.masterKey, logger: createLogger("silent") });
    if (command === "bootstrap") {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { email: { type: "string" }, password: { type: "string" }, workspace: { type: "string" } },
      });
      if (!values.email || !values.password) fail("bootstrap needs --email and --password\n\n" + USAGE);
      const result = await services.tenancy.bootstrap({
        email: values.email,
        password: values.password,
        workspaceName: values.workspace ?? "Default workspace",
      });
      console.log(JSON.stringify(result));
      return;
    }
    if (command === "keys" && sub === "rotate") {
      const { values } = parseArgs({ args: argv.slice(2), options: { "activate-in": { type: "string" } } });
      const lead = Number(values["activate-in"] ?? 300);
      if (!Number.isInteger(lead) || lead < 0 || lead > 86_400) fail("--activate-in must be a whole number of seconds from 0 to 86400");
      console.log(JSON.stringify(await services.keys.rotate(lead)));
      return;
    }
    if (command === "keys" && sub === "list") {
      console.log(JSON.stringify(await services.keys.describe(), null, 2));
      return;
    }
    fail(`unknown command: ${argv.join(" ")}\n\n${USAGE}`);
  } finally {
    await booted.db.$disconnect();
  }
}

main(process.argv.slice(2)).catch((e) => {
  if (e?.name === "ZodError") fail(`invalid input: ${e.issues?.map((i: { path: string[]; message: string }) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ")}`);
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
