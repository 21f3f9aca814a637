// TOOLGATE_WORKERS=N (N > 1, PostgreSQL only; src/config.ts refuses it on SQLite): N server
// processes share the one port through node:cluster (the primary accepts connections and hands
// them to the workers in turn). Each worker is a whole Toolgate server (src/main.ts) with its own
// in-memory caches; they stay correct exactly as between several instances: every committed write
// is announced on PostgreSQL's LISTEN/NOTIFY channel (src/storage/pg-notifications.ts), to which
// each worker listens, and a worker whose listener is down reloads entries older than
// TOOLGATE_CACHE_STALE_MS before using them.
//
// The primary touches no database. It starts every worker at once (loading the code is the slow
// part), but only worker 1 opens the database straight away (it applies the migrations and creates
// the first workspace from TOOLGATE_ADMIN_*); the others wait for the primary's go-ahead, sent once
// worker 1 listens, so two processes never race to migrate or bootstrap. A worker that dies after start-up is replaced; one
// that fails to start stops the whole server with its exit code. SIGTERM/SIGINT stop every worker
// gracefully (each finishes its requests, src/main.ts shutdown) and then the primary.
import cluster, { type Worker } from "node:cluster";
import type { Config } from "./config";
import { serveClusterMetrics } from "./metrics/cluster-metrics";

export function runPrimary(config: Config): void {
  let shuttingDown = false;
  let started = false;
  let firstListening = false;
  const listening = new Set<number>();

  const fork = (): Worker => {
    const worker = cluster.fork();
    // A replacement (after start-up) may open the database at once.
    if (firstListening) worker.once("online", () => worker.send(GO_AHEAD));
    worker.once("listening", () => {
      listening.add(worker.id);
      if (worker.id === 1 && !firstListening) {
        firstListening = true;
        for (const w of Object.values(cluster.workers ?? {})) if (w && w.id !== 1) w.send(GO_AHEAD);
      }
      if (!started && listening.size === config.workers) {
        started = true;
        console.log(`Toolgate is listening on ${config.publicUrl} (database: ${config.database.kind}, ${config.workers} workers)`);
      }
    });
    worker.once("exit", (code, signal) => {
      listening.delete(worker.id);
      if (shuttingDown) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
        return;
      }
      if (!started) {
        console.error(`Toolgate worker ${worker.id} stopped during start-up (${signal ?? `exit code ${code}`}); stopping.`);
        shuttingDown = true;
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
        process.exitCode = code || 1;
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode);
        return;
      }
      console.error(`Toolgate worker ${worker.id} stopped (${signal ?? `exit code ${code}`}); starting a replacement.`);
      fork();
    });
    return worker;
  };

  const shutdown = () => {
    if (shuttingDown) return;
    shuttingDown = true;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(0);
    for (const w of workers) w?.process.kill("SIGTERM");
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  // GET /metrics, answered by any worker, sums every worker's figures (metrics/cluster-metrics.ts).
  if (config.metricsToken) serveClusterMetrics();
  for (let i = 0; i < config.workers; i++) fork();
}

const GO_AHEAD = "toolgate:open-database";

/** In a worker: resolves once this worker may open the database (worker 1 at once; see above). */
export async function awaitGoAhead(): Promise<void> {
  if (!cluster.isWorker || cluster.worker!.id === 1) return;
  await new Promise<void>((resolve) => {
    const onMessage = (m: unknown) => {
      if (m !== GO_AHEAD) return;
      process.off("message", onMessage);
      resolve();
    };
    process.on("message", onMessage);
  });
}

/** This process's worker number (1..N) under TOOLGATE_WORKERS, undefined when it runs alone. */
export function workerNumber(): number | undefined {
  return cluster.isWorker ? cluster.worker!.id : undefined;
}

export const isClusterPrimary = (config: Config): boolean => config.workers > 1 && cluster.isPrimary;
