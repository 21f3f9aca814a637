import type { CliCommand } from "../command";
import { usageError } from "../command";
import { withDatabase } from "../open-services";
import { PASSWORD_OPTIONS, PASSWORD_SYNOPSIS, readPassword } from "../secret-input";
import { checkFlag } from "../flags";

export const bootstrapCommand: CliCommand = {
  name: "bootstrap",
  synopsis: `--email E ${PASSWORD_SYNOPSIS} [--workspace NAME]`,
  summary:
    'create a workspace with E as its owner; prints {"workspace_id", "user_id"}. Users are private to a\n' +
    "workspace: an email that owns another workspace gets a second, separate account here. Example: printf %s \"$PW\" | toolgate bootstrap --email you@example.com --password-stdin",
  options: { email: { type: "string" }, workspace: { type: "string" }, ...PASSWORD_OPTIONS },
  async run(ctx, values) {
    if (values.email === undefined) usageError("bootstrap: --email is required");
    const { emailSchema, passwordSchema } = await import("../../modules/tenancy");
    const email = checkFlag("bootstrap", "--email", emailSchema, values.email);
    const password = checkFlag("bootstrap", "--password", passwordSchema, await readPassword(ctx, values, "bootstrap"));
    await withDatabase(ctx, async ({ services }) => {
      const { tenancy } = await services();
      const workspaceName = (values.workspace as string | undefined) ?? "Default workspace";
      ctx.io.out(JSON.stringify(await tenancy.bootstrap({ email, password, workspaceName })));
    });
  },
};
