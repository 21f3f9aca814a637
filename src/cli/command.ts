// What a `toolgate` command is: its words, its options, one line of help and a run function.
// The commands themselves are listed in ./commands/index.ts (the registry); run.ts dispatches.
// A command module stays cheap to import: it loads the database and the services inside run()
// (./open-services.ts), so `toolgate help` and `toolgate keygen` answer at once.

/** One option as node:util parseArgs takes it (single values only). */
export interface CliOption {
  type: "string" | "boolean";
  short?: string;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** The whole of standard input (for `--password-stdin`); absent when there is none to read. */
  readStdin?(): Promise<string>;
}

export interface CliContext {
  env: Record<string, string | undefined>;
  io: CliIo;
}

export interface CliCommand {
  /** The words after `toolgate`: "migrate", "keys rotate". The first word of a two-word name is its group. */
  name: string;
  /** Options as printed in the synopsis, e.g. "[--activate-in SECONDS]". */
  synopsis: string;
  /** What it does and what it prints (one or a few lines). */
  summary: string;
  options: Record<string, CliOption>;
  /** Names of the positional arguments it takes, in order (none unless listed); their values arrive under these names. */
  positionals?: readonly string[];
  run(ctx: CliContext, values: Record<string, string | boolean | undefined>): Promise<void>;
}

/** A refusal with its exit status (2: usage or input, 1: the command failed). */
export class CliExit extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A usage or input error naming what to fix: exit status 2. */
export function usageError(message: string): never {
  throw new CliExit(2, message);
}
