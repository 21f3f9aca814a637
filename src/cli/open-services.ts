// The database and services behind a command, loaded on first use (dynamic imports), so commands
// that need none (help, keygen) do not pay for Prisma and the whole service graph.
import type { CliContext } from "./command";
import type { Services } from "../app";
import type { Booted } from "../boot";
import type { Config } from "../config";
import type { KeyStore } from "../modules/tokens";

export interface Opened {
  config: Config;
  booted: Booted;
  /** Every service, built on first call (bootstrap and keys need them; migrate does not). */
  services(): Promise<Services>;
  /**
   * The signing-key store alone, as createServices builds it (src/app.ts), without the HTTP and
   * GraphQL modules app.ts imports: `keys rotate|list` answer in half the time.
   */
  keyStore(): Promise<KeyStore>;
}

/** Boots (database, migrations, master key), runs `fn`, and always disconnects. */
export async function withDatabase<T>(ctx: CliContext, fn: (opened: Opened) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { boot }] = await Promise.all([import("../config"), import("../boot")]);
  // The CLI never bootstraps from the server's TOOLGATE_ADMIN_* variables.
  const config = loadConfig({ ...ctx.env, TOOLGATE_ADMIN_EMAIL: undefined, TOOLGATE_ADMIN_PASSWORD: undefined });
  const booted = await boot(config);
  let services: Promise<Services> | undefined;
  // What a command writes is the operator's: the audit trail records the CLI and the OS user.
  const { runInContext } = await import("../shared/request-context");
  const { userInfo } = await import("node:os");
  try {
    return await runInContext({ actor: { type: "cli", id: operatorName(userInfo) }, address: "local" }, () => fn({
      config,
      booted,
      services: () =>
        (services ??= Promise.all([import("../app"), import("../shared/logger")]).then(([{ createServices }, { createLogger }]) =>
          createServices({ config, db: booted.db, masterKey: booted.masterKey, logger: createLogger("silent") }),
        )),
      keyStore: async () => {
        const [{ KeyStore }, { deriveKey }, { systemClock }, { changesOf }] = await Promise.all([
          import("../modules/tokens"),
          import("../shared/crypto"),
          import("../shared/clock"),
          import("../storage"),
        ]);
        const keys = new KeyStore(booted.db, deriveKey(booted.masterKey, "signing-keys"), systemClock, changesOf(booted.db), () => {
          // Background reloads (another process rotated a key) do not matter to a one-shot command.
        });
        await keys.init();
        return keys;
      },
    }));
  } finally {
    await booted.db.$disconnect();
  }
}

/** The operator's OS account name, for the audit trail (unknown when the system has none). */
function operatorName(userInfo: typeof import("node:os").userInfo): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}
