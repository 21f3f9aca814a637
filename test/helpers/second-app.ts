// Another Toolgate instance in this process on a harness's database (another server behind the
// same URL, or the same server after a restart): its own caches and memory, the same rows.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { boot } from "../../src/boot";
import { createApp, type App } from "../../src/app";
import { createLogger } from "../../src/shared/logger";
import type { Clock } from "../../src/shared/clock";
import type { Harness } from "./harness";

export interface SecondApp {
  url: string;
  app: App;
  close(): Promise<void>;
}

/** Boots and serves (ephemeral port) a new app on `h`'s database; `clock` defaults to the system's. */
export async function startSecondApp(h: Harness, clock?: Clock): Promise<SecondApp> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent"), clock });
  await app.start();
  const server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    app,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await db.$disconnect();
    },
  };
}
