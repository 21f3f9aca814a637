// A password for a command without putting it in argv (where shells, npm and `ps` show it):
// `--password-stdin` reads it from standard input, or the environment variable TOOLGATE_PASSWORD
// holds it. `--password P` still works for scripts that accept the exposure.
import { usageError, type CliContext, type CliOption } from "./command";

export const PASSWORD_ENV = "TOOLGATE_PASSWORD";

export const PASSWORD_OPTIONS: Record<string, CliOption> = {
  password: { type: "string" },
  "password-stdin": { type: "boolean" },
};

export const PASSWORD_SYNOPSIS = `--password-stdin | --password P  (or ${PASSWORD_ENV} in the environment)`;

/** The password chosen by --password, --password-stdin or TOOLGATE_PASSWORD (exactly one of them). */
export async function readPassword(ctx: CliContext, values: Record<string, string | boolean | undefined>, command: string): Promise<string> {
  const sources = [values.password !== undefined, values["password-stdin"] === true, Boolean(ctx.env[PASSWORD_ENV])].filter(Boolean).length;
  if (sources > 1) usageError(`${command}: give the password one way only: --password-stdin, --password or ${PASSWORD_ENV}`);
  if (values["password-stdin"] === true) {
    if (!ctx.io.readStdin) usageError(`${command}: --password-stdin: no standard input to read`);
    // One line: `printf %s "$PW" | ...` and `echo "$PW" | ...` both work.
    const text = (await ctx.io.readStdin()).replace(/\r?\n$/, "");
    if (text === "") usageError(`${command}: --password-stdin: standard input was empty`);
    return text;
  }
  const password = (values.password as string | undefined) ?? ctx.env[PASSWORD_ENV];
  if (!password) usageError(`${command}: needs a password: --password-stdin (read from standard input), ${PASSWORD_ENV}=... or --password P`);
  return password;
}
