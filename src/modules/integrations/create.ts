// Builds /svc/exsvc: subscriptions and deliveries (admin), the fan-out and the log stream (audit
// trail consumers) and the dispatcher, and connects them to the audit trail. src/app.ts calls it.
import { auditTrailOf, changesOf, type Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { DeliveryService } from "./delivery-service";
import { WebhookDispatcher, type DispatchOptions } from "./dispatcher";
import { EventConsumer } from "./event-consumer";
import { FANOUT_CONSUMER, fanoutHandler } from "./fanout";
import { LOG_STREAM_CONSUMER, logStreamHandler } from "./log-stream";
import { SubscriptionService } from "./subscription-service";

export interface IntegrationDeps {
  db: Db;
  caches: CacheFactory;
  clock: Clock;
  ids: IdGenerator;
  /** Randomness for retry jitter (injected like the clock). */
  random: () => number;
  secretKey: Buffer;
  dispatch: DispatchOptions & { worker: boolean; pollMs: number };
  /** "stdout", a file path, or undefined (no stream). */
  logStream: string | undefined;
  onError: (e: unknown) => void;
}

export interface Integrations {
  subscriptions: SubscriptionService;
  deliveries: DeliveryService;
  fanout: EventConsumer;
  logStream: EventConsumer | undefined;
  dispatcher: WebhookDispatcher;
  /** Consumers catch up with the trail, then the dispatcher runs on its timer (if this instance is a worker). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL: how often the consumers look for chains another instance appended to and did not
 * consume (its crash), from the chain heads. SQLite has one server: it reconciles at start and
 * when another process (the CLI) wrote the file, never on a timer (its reconcile reads every event).
 */
const RECONCILE_MS = 60_000;

export function createIntegrations(deps: IntegrationDeps): Integrations {
  const trail = auditTrailOf(deps.db);
  const subscriptions = new SubscriptionService(deps.db, deps.clock, deps.ids, deps.secretKey, { allowPrivateNetworks: deps.dispatch.allowPrivateNetworks });
  const dispatcher = new WebhookDispatcher(deps.db, deps.clock, deps.random, subscriptions, deps.dispatch, deps.onError);
  const wake = () => {
    if (deps.dispatch.worker) void dispatcher.runOnce().catch(deps.onError);
  };
  const deliveries = new DeliveryService(deps.db, deps.clock, deps.ids, subscriptions, wake);
  const active = deps.caches.create<boolean>("webhooks", async (tenantId) => ((await deps.db.webhookSubscription.count({ where: { tenantId, status: "active" } })) > 0 ? true : null));
  const fanout = new EventConsumer(FANOUT_CONSUMER, deps.db, trail.dialect, deps.clock, fanoutHandler(deps.clock, deps.ids, (tenantId) => active.get(tenantId), wake), deps.onError);
  const logStream = deps.logStream ? new EventConsumer(LOG_STREAM_CONSUMER, deps.db, trail.dialect, deps.clock, logStreamHandler(deps.logStream), deps.onError) : undefined;
  const consumers = [fanout, ...(logStream ? [logStream] : [])];
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const reconcile = () => Promise.all(consumers.map((c) => c.reconcile())).then(() => undefined);
  return {
    subscriptions,
    deliveries,
    fanout,
    logStream,
    dispatcher,
    async start() {
      unsubscribe = trail.onAppended((e) => consumers.forEach((c) => c.appended(e)));
      await reconcile().catch(deps.onError);
      // Another process wrote (SQLite: the CLI), or the PostgreSQL listener reconnected.
      changesOf(deps.db).onReset(() => (stopped ? undefined : reconcile().catch(deps.onError)));
      if (trail.dialect === "postgresql") {
        timer = setInterval(() => void reconcile().catch(deps.onError), RECONCILE_MS);
        timer.unref();
      }
      // SQLite serves one instance: nobody else leaves deliveries behind, so it never polls.
      if (deps.dispatch.worker) dispatcher.start(trail.dialect === "postgresql" ? deps.dispatch.pollMs : undefined);
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      clearInterval(timer);
      await dispatcher.stop();
      await Promise.all(consumers.map((c) => c.drain()));
    },
  };
}
