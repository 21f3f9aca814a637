// `toolgate users ...`: the operator's way back in when sign-in is throttled or a password is lost.
// A new password is never taken from argv (the process list and shell history would show it):
// it comes from stdin (--password-stdin) or the TOOLGATE_NEW_PASSWORD environment variable.
import { parseArgs } from "node:util";
import type { TenancyService } from "../modules/tenancy";

export const USERS_USAGE = `  users reset-password --email E [--workspace ID] (--password-stdin | TOOLGATE_NEW_PASSWORD=...)
                                            set a user's password (first line of stdin, or the
                                            variable; never an argument) and clear their failed
                                            sign-in counts; --workspace when the email has accounts
                                            in several workspaces; prints {"user_id", "workspace_id"}
  users unlock (--email E | --address IP)   clear failed sign-in counts of an account (every
                                            address) or of a client address; prints {"cleared"}`;

export const isUsersCommand = (command: string | undefined, sub: string | undefined) => command === "users" && (sub === "reset-password" || sub === "unlock");

export interface UsersIo {
  out(text: string): void;
  /** The whole of stdin (only read when --password-stdin is given). */
  stdin?: () => Promise<string>;
}

/** Runs `users <sub>`; throws UsageError for bad arguments. */
export async function runUsersCommand(
  tenancy: Pick<TenancyService, "resetPassword" | "unlock">,
  argv: string[],
  env: Record<string, string | undefined>,
  io: UsersIo,
  usage: (message: string) => never,
): Promise<void> {
  const [, sub, ...rest] = argv;
  if (sub === "reset-password") {
    const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, workspace: { type: "string" }, "password-stdin": { type: "boolean" }, password: { type: "string" } } });
    if (values.password !== undefined) usage("users reset-password: --password is refused (argv is visible to other users and kept in shell history); use --password-stdin or TOOLGATE_NEW_PASSWORD");
    if (!values.email) usage("users reset-password needs --email");
    let password: string | undefined;
    if (values["password-stdin"]) {
      if (!io.stdin) usage("users reset-password: --password-stdin needs a standard input");
      password = (await io.stdin!()).split(/\r?\n/)[0];
    } else password = env.TOOLGATE_NEW_PASSWORD;
    if (!password) usage("users reset-password needs the new password on stdin (--password-stdin) or in TOOLGATE_NEW_PASSWORD");
    io.out(JSON.stringify(await tenancy.resetPassword(values.email!, password!, values.workspace)));
    return;
  }
  const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, address: { type: "string" } } });
  if (!values.email && !values.address) usage("users unlock needs --email or --address");
  io.out(JSON.stringify(await tenancy.unlock({ email: values.email, address: values.address })));
}
