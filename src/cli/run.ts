// The `toolgate` commands as a function: argv and environment in, output and an exit status out.
// src/cli.ts is the process entry around it; tests call it in process. The commands are the
// registry in ./commands/index.ts; this file finds one, parses its options and explains failures.
import { parseArgs } from "node:util";
import { CliExit, type CliCommand, type CliIo } from "./command";
import { COMMANDS, GROUPS } from "./commands";

export type { CliIo } from "./command";

const ENVIRONMENT = "environment: DATABASE_URL, TOOLGATE_DATA_DIR, TOOLGATE_MASTER_KEY (as for the server)";

function line(c: CliCommand): string {
  const head = `  ${c.name}${c.synopsis ? ` ${c.synopsis}` : ""}`;
  return `${head}\n${c.summary
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n")}`;
}

function usageOf(commands: readonly CliCommand[], title: string): string {
  return [title, "", "commands:", ...commands.map(line), "", ENVIRONMENT].join("\n");
}

export const USAGE = usageOf(COMMANDS, "usage: toolgate <command> [options]   (toolgate <command> --help for one command)");

const groupUsage = (group: string) =>
  usageOf(
    COMMANDS.filter((c) => c.name.startsWith(`${group} `)),
    `usage: toolgate ${group} <command> [options]   (${GROUPS[group] ?? group})`,
  );

const isHelp = (word: string | undefined) => word === "help" || word === "--help" || word === "-h";

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
    // Loaded only on failure: it imports the configuration schema, which help and keygen never need.
    const { explainStartupError } = await import("../startup-errors");
    const explained = explainStartupError(e, env);
    if (explained) {
      io.err(explained.message);
      return explained.status;
    }
    io.err(e instanceof Error ? e.message : String(e));
    return 1;
  }
}

async function run(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<void> {
  const [first, second] = argv;
  if (first === undefined || isHelp(first)) {
    // `toolgate help keys` / `toolgate help keys rotate` read as `toolgate keys --help`.
    if (second !== undefined) return run([...argv.slice(1), "--help"], env, io);
    io.out(USAGE);
    return;
  }
  const command = COMMANDS.find((c) => c.name === first) ?? COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (!command) {
    if (first in GROUPS) {
      // `toolgate keys` (or `toolgate keys --help`) lists the group; an unknown word after it is an error.
      if (second === undefined || isHelp(second)) return io.out(groupUsage(first));
      throw new CliExit(2, `unknown command: toolgate ${first} ${second}\n\n${groupUsage(first)}`);
    }
    throw new CliExit(2, `unknown command: toolgate ${first}\n\n${USAGE}`);
  }
  const args = argv.slice(command.name.split(" ").length);
  if (args.some(isHelp)) return io.out(usageOf([command], `usage: toolgate ${command.name}${command.synopsis ? ` ${command.synopsis}` : ""}`));
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args, options: command.options, strict: true, allowPositionals: (command.positionals?.length ?? 0) > 0 });
    values = parsed.values as Record<string, string | boolean | undefined>;
    const names = command.positionals ?? [];
    if (parsed.positionals.length > names.length) throw new CliExit(2, `${command.name}: unexpected argument ${parsed.positionals[names.length]} (see toolgate ${command.name} --help)`);
    names.forEach((name, i) => (values[name] = parsed.positionals[i]));
  } catch (e) {
    if (e instanceof CliExit) throw e;
    throw new CliExit(2, `${command.name}: ${optionProblem(e as Error & { code?: string })} (see toolgate ${command.name} --help)`);
  }
  await command.run({ env, io }, values);
}

/** node:util parseArgs errors, rephrased to name the flag and nothing else. */
function optionProblem(e: Error & { code?: string }): string {
  const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${flag}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(e.message) ? `${flag} needs a value` : `${flag} takes no value`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL": {
      const word = /'([^']*)'/.exec(e.message)?.[1];
      return `unexpected argument ${word ?? ""}`.trim();
    }
    default:
      return e.message;
  }
}
