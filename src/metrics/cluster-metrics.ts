// GET /metrics under TOOLGATE_WORKERS: the figures of every worker, summed, whichever worker the
// scraper's connection lands on (src/cluster.ts hands connections to workers in turn, so one
// worker's own figures would be a random sample of the server's).
//
// prom-client's AggregatorRegistry does the collection: the primary asks every worker for its
// registry as JSON over the cluster IPC channel and merges them (counters and histograms summed,
// gauges by their `aggregator`). A worker asked for /metrics asks the primary for that merge.
// Only set up when TOOLGATE_METRICS_TOKEN is set (no /metrics otherwise).
import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

const REQUEST = "toolgate:metrics-request";
const RESPONSE = "toolgate:metrics-response";
/** prom-client gives each worker 5 s to answer; the primary's answer to us comes after that. */
const ANSWER_TIMEOUT_MS = 6_000;

interface MetricsMessage {
  type: string;
  id: number;
  body?: string;
  error?: string;
}

const isMessage = (m: unknown, type: string): m is MetricsMessage => typeof m === "object" && m !== null && (m as MetricsMessage).type === type;

/** In the primary: answers the workers' requests with every worker's figures merged. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, m: unknown) => {
    if (!isMessage(m, REQUEST)) return;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: RESPONSE, id: m.id, body }),
      (e: Error) => worker.send({ type: RESPONSE, id: m.id, error: e.message }),
    );
  });
}

/**
 * In a worker: offers this worker's `registry` to the primary's merge and returns how to read the
 * merged figures; undefined when this process is not a cluster worker (it answers alone).
 */
export function clusterMetricsReader(registry: Registry): (() => Promise<string>) | undefined {
  if (!cluster.isWorker) return undefined;
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // installs the worker's listener that answers the primary
  const pending = new Map<number, { resolve: (body: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on("message", (m: unknown) => {
    if (!isMessage(m, RESPONSE)) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.error !== undefined) p.reject(new Error(`the other workers' figures: ${m.error}`));
    else p.resolve(m.body ?? "");
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("the other workers' figures: no answer from the primary"));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      process.send!({ type: REQUEST, id });
    });
}
