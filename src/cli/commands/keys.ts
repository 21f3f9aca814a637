import type { CliCommand } from "../command";
import { usageError } from "../command";
import { withDatabase } from "../open-services";

export const keysRotateCommand: CliCommand = {
  name: "keys rotate",
  synopsis: "[--activate-in SECONDS]",
  summary:
    "add an ES256 signing key: published in the JWKS now, signing after SECONDS (0 to 86400, default 300);\n" +
    'prints {"kid", "activates_at"}. The old key stays published until every token it signed has expired',
  options: { "activate-in": { type: "string" } },
  async run(ctx, values) {
    const raw = (values["activate-in"] as string | undefined) ?? "300";
    const lead = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(lead) || lead > 86_400) usageError(`keys rotate: --activate-in must be a whole number of seconds from 0 to 86400 (got "${raw}")`);
    await withDatabase(ctx, async ({ keyStore }) => ctx.io.out(JSON.stringify(await (await keyStore()).rotate(lead))));
  },
};

export const keysListCommand: CliCommand = {
  name: "keys list",
  synopsis: "",
  summary: 'list the signing keys: [{"kid", "activates_at", "signing", "published"}], oldest first',
  options: {},
  async run(ctx) {
    await withDatabase(ctx, async ({ keyStore }) => ctx.io.out(JSON.stringify((await keyStore()).describe(), null, 2)));
  },
};
