// `toolgate users ...`: the operator's way back in when sign-in is throttled or a password is lost
// (docs/decisions/0022-login-throttle.md). A new password is never taken from argv (the process
// list and shell history would show it): it comes from stdin (--password-stdin) or the
// TOOLGATE_NEW_PASSWORD environment variable.
import type { CliCommand } from "../command";
import { usageError } from "../command";
import { withDatabase } from "../open-services";

export const usersResetPasswordCommand: CliCommand = {
  name: "users reset-password",
  synopsis: "--email E [--workspace ID] (--password-stdin | TOOLGATE_NEW_PASSWORD=...)",
  summary:
    "set a user's password (first line of stdin, or the variable; never an argument) and clear their failed\n" +
    'sign-in counts; --workspace when the email has accounts in several workspaces; prints {"user_id", "workspace_id"}',
  options: { email: { type: "string" }, workspace: { type: "string" }, "password-stdin": { type: "boolean" }, password: { type: "string" } },
  async run(ctx, values) {
    if (values.password !== undefined) {
      usageError("users reset-password: --password is refused (argv is visible to other users and kept in shell history); use --password-stdin or TOOLGATE_NEW_PASSWORD");
    }
    if (!values.email) usageError("users reset-password needs --email");
    let password: string | undefined;
    if (values["password-stdin"] === true) {
      if (!ctx.io.readStdin) usageError("users reset-password: --password-stdin needs a standard input");
      password = (await ctx.io.readStdin()).split(/\r?\n/)[0];
    } else password = ctx.env.TOOLGATE_NEW_PASSWORD;
    if (!password) usageError("users reset-password needs the new password on stdin (--password-stdin) or in TOOLGATE_NEW_PASSWORD");
    await withDatabase(ctx, async ({ services }) => {
      const { tenancy } = await services();
      ctx.io.out(JSON.stringify(await tenancy.resetPassword(values.email as string, password!, values.workspace as string | undefined)));
    });
  },
};

export const usersUnlockCommand: CliCommand = {
  name: "users unlock",
  synopsis: "(--email E | --address IP)",
  summary: 'clear failed sign-in counts of an account (every address) or of a client address; prints {"cleared"}',
  options: { email: { type: "string" }, address: { type: "string" } },
  async run(ctx, values) {
    if (!values.email && !values.address) usageError("users unlock needs --email or --address");
    await withDatabase(ctx, async ({ services }) => {
      const { tenancy } = await services();
      ctx.io.out(JSON.stringify(await tenancy.unlock({ email: values.email as string | undefined, address: values.address as string | undefined })));
    });
  },
};

export const usersResetMfaCommand: CliCommand = {
  name: "users reset-mfa",
  synopsis: "--email E [--workspace ID]",
  summary:
    "remove a user's second factors (authenticator, recovery codes, passkeys) when they lost them; their next sign-in\n" +
    'is by password (and asks them to enrol again where the workspace requires it); prints {"user_id", "workspace_id"}',
  options: { email: { type: "string" }, workspace: { type: "string" } },
  async run(ctx, values) {
    if (!values.email) usageError("users reset-mfa needs --email");
    await withDatabase(ctx, async ({ services }) => {
      const { tenancy, signin } = await services();
      const found = await tenancy.findUser(values.email as string, values.workspace as string | undefined);
      await signin.totp.reset(found.workspace_id, found.user_id);
      await signin.passkeys.reset(found.workspace_id, found.user_id);
      ctx.io.out(JSON.stringify(found));
    });
  },
};
