import type { CliCommand } from "../command";
import { usageError } from "../command";
import { withDatabase } from "../open-services";
import type { SigningAlg } from "../../modules/tokens";

export const keysRotateCommand: CliCommand = {
  name: "keys rotate",
  synopsis: "[--activate-in SECONDS] [--alg ES256|RS256]",
  summary:
    "add a signing key (ES256 by default: access, admin and ID tokens; RS256: ID tokens of clients that ask for it):\n" +
    'published in the JWKS now, signing after SECONDS (0 to 86400, default 300); prints {"kid", "activates_at"}.\n' +
    "The old key stays published until every token it signed has expired",
  options: { "activate-in": { type: "string" }, alg: { type: "string" } },
  async run(ctx, values) {
    const raw = (values["activate-in"] as string | undefined) ?? "300";
    const lead = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(lead) || lead > 86_400) usageError(`keys rotate: --activate-in must be a whole number of seconds from 0 to 86400 (got "${raw}")`);
    // Loaded here, not at the top: a command module loads the services only inside run().
    const { SIGNING_ALG, SIGNING_ALGS } = await import("../../modules/tokens/key-store");
    const alg = (values.alg as string | undefined) ?? SIGNING_ALG;
    if (!SIGNING_ALGS.includes(alg as SigningAlg)) usageError(`keys rotate: --alg must be one of ${SIGNING_ALGS.join(", ")} (got "${alg}")`);
    await withDatabase(ctx, async ({ keyStore }) => ctx.io.out(JSON.stringify(await (await keyStore()).rotate(lead, alg as SigningAlg))));
  },
};

export const keysListCommand: CliCommand = {
  name: "keys list",
  synopsis: "",
  summary: 'list the signing keys: [{"kid", "alg", "activates_at", "signing", "published"}], oldest first',
  options: {},
  async run(ctx) {
    await withDatabase(ctx, async ({ keyStore }) => ctx.io.out(JSON.stringify((await keyStore()).describe(), null, 2)));
  },
};
