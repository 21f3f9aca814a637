// Graceful shutdown: on SIGTERM (what orchestrators send before SIGKILL) or SIGINT, stop accepting
// connections, let every request already received finish, then release the database. Idle
// keep-alive connections are closed at once and each busy one as soon as its response is sent,
// so clients are not cut off mid-answer. A second signal, or DRAIN_DEADLINE_MS, ends it at once.
import type { Server } from "node:http";
import type { Logger } from "./shared/logger";

export const DRAIN_DEADLINE_MS = 25_000;

export function drainOnSignals(server: Server, logger: Logger, release: () => Promise<void>): void {
  let draining = false;
  const shutdown = (signal: string) => {
    if (draining) {
      logger.warn({ signal }, "second signal: exiting without waiting for in-flight requests");
      process.exit(1);
    }
    draining = true;
    logger.info({ signal }, "shutting down: draining in-flight requests");
    // A response written while closing carries `Connection: close` (Node sets it once the server
    // stops listening), so a busy keep-alive connection ends after its answer; idle ones end now.
    server.close(() => {
      clearInterval(sweeper);
      release().then(
        () => {
          logger.info({}, "shut down");
          process.exit(0);
        },
        (e) => {
          logger.error({ err: e }, "error while shutting down");
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
    // Connections that turn idle later (their request done, the client holding them open) are swept.
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    setTimeout(() => {
      logger.warn({ deadline_ms: DRAIN_DEADLINE_MS }, "in-flight requests did not finish in time: exiting");
      process.exit(1);
    }, DRAIN_DEADLINE_MS).unref();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}
