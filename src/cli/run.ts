// The `toolgate` commands as a function: argv and environment in, output and an exit status out.
// src/cli.ts is the process entry around it; tests call it in process.
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config";
import { boot } from "../boot";
import { createLogger } from "../shared/logger";
import { createServices } from "../app";
import { USERS_USAGE, isUsersCommand, runUsersCommand } from "./users";

export const USAGE = `usage: toolgate <command> [options]

commands:
  migrate                                   apply pending database migrations
  bootstrap --email E --password P [--workspace NAME]
                                            create a workspace with E as its owner; prints
                                            {"workspace_id": ..., "user_id": ...}
  keys rotate [--activate-in SECONDS]       add a signing key: published now, signing after
                                            SECONDS (default 300); prints {"kid", "activates_at"}
  keys list                                 list signing keys and their schedule
${USERS_USAGE}

environment: DATABASE_URL, TOOLGATE_DATA_DIR, TOOLGATE_MASTER_KEY (as for the server)`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** The whole of standard input (commands that read a secret from it). */
  stdin?: () => Promise<string>;
}

/** A refusal with its exit status (2: usage or input, 1: the command failed). */
class CliExit extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const usage = (message: string): never => {
  throw new CliExit(2, message);
};

/** Runs one command; resolves to the process exit status. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  try {
    await run(argv, env, io);
    return 0;
  } catch (e) {
    if (e instanceof CliExit) {
      io.err(e.message);
      return e.status;
    }
    if (e instanceof ConfigError) {
      io.err(e.message);
      return 2;
    }
    if ((e as Error)?.name === "ZodError") {
      const issues = (e as { issues?: { path: string[]; message: string }[] }).issues ?? [];
      io.err(`invalid input: ${issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ")}`);
      return 2;
    }
    io.err(e instanceof Error ? e.message : String(e));
    return 1;
  }
}

async function run(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<void> {
  const [command, sub] = argv;
  if (!command || command === "help" || command === "--help") {
    io.out(USAGE);
    return;
  }
  const known = command === "migrate" || command === "bootstrap" || (command === "keys" && (sub === "rotate" || sub === "list")) || isUsersCommand(command, sub);
  if (!known) usage(`unknown command: ${argv.join(" ")}\n\n${USAGE}`);
  // The CLI never bootstraps from the server's TOOLGATE_ADMIN_* variables.
  const config = loadConfig({ ...env, TOOLGATE_ADMIN_EMAIL: undefined, TOOLGATE_ADMIN_PASSWORD: undefined });
  const booted = await boot(config);
  try {
    if (command === "migrate") {
      io.out(JSON.stringify({ applied: booted.appliedMigrations }));
      return;
    }
    const services = await createServices({ config, db: booted.db, masterKey: booted.masterKey, logger: createLogger("silent") });
    if (command === "users") {
      await runUsersCommand(services.tenancy, argv, env, io, usage);
      return;
    }
    if (command === "bootstrap") {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { email: { type: "string" }, password: { type: "string" }, workspace: { type: "string" } },
      });
      if (!values.email || !values.password) usage("bootstrap needs --email and --password\n\n" + USAGE);
      const result = await services.tenancy.bootstrap({ email: values.email!, password: values.password!, workspaceName: values.workspace ?? "Default workspace" });
      io.out(JSON.stringify(result));
      return;
    }
    if (sub === "rotate") {
      const { values } = parseArgs({ args: argv.slice(2), options: { "activate-in": { type: "string" } } });
      const lead = Number(values["activate-in"] ?? 300);
      if (!Number.isInteger(lead) || lead < 0 || lead > 86_400) usage("--activate-in must be a whole number of seconds from 0 to 86400");
      io.out(JSON.stringify(await services.keys.rotate(lead)));
      return;
    }
    io.out(JSON.stringify(services.keys.describe(), null, 2));
  } finally {
    await booted.db.$disconnect();
  }
}
