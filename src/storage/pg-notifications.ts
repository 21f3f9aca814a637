// Cache invalidation between instances on PostgreSQL: LISTEN/NOTIFY (docs/decisions/0001-per-entry-caches.md).
//
// Publishing: the writing transaction runs `SELECT pg_notify(channel, payload)` as its last
// statement; PostgreSQL delivers notifications only when (and if) the transaction commits, so a
// crash between commit and publication cannot lose one. A payload is JSON
// {"o": instance id, "k": [changes], "a": [kinds dropped whole]}; NOTIFY payloads are limited to
// 8000 bytes, so large sets are split, and beyond BULK_KEY_LIMIT keys a kind is sent as "all".
//
// Listening: one dedicated connection per instance (not from the pool), reconnecting with backoff.
// While it is down the bus is marked disconnected, so caches reload entries older than a few
// seconds before use (a missed invalidation cannot keep access alive longer than that); after a
// reconnect every cache is dropped, since what was missed cannot be known.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { ChangeSet, splitChange, type ChangeBus, type ChangeKind, type ChangeTransport } from "./change-bus";
import { BULK_KEY_LIMIT } from "./change-tracking";

export const CHANGE_CHANNEL = "toolgate_changes";
const MAX_PAYLOAD_BYTES = 7900;
const BACKOFF_MS = [50, 100, 250, 500, 1000, 2000, 5000];

interface Payload {
  o: string;
  /** Publication time (ms since the epoch, the writer's clock): the receiver's invalidation lag. */
  t?: number;
  k?: string[];
  a?: string[];
}

/** Splits a change set into NOTIFY payloads of at most MAX_PAYLOAD_BYTES. */
export function encodeChanges(instanceId: string, changes: ChangeSet): string[] {
  const allOf = new Set<string>(changes.allOf);
  const perKind = new Map<string, number>();
  for (const c of changes.keys) {
    const kind = splitChange(c)[0];
    perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
  }
  for (const [kind, n] of perKind) if (n > BULK_KEY_LIMIT) allOf.add(kind);
  const keys = [...changes.keys].filter((c) => !allOf.has(splitChange(c)[0]));
  const payloads: string[] = [];
  let batch: string[] = [];
  let size = 0;
  const t = Date.now();
  const head = { o: instanceId, t, ...(allOf.size ? { a: [...allOf] } : {}) };
  const base = JSON.stringify(head).length + 10;
  for (const k of keys) {
    const len = JSON.stringify(k).length + 1;
    if (batch.length > 0 && base + size + len > MAX_PAYLOAD_BYTES) {
      payloads.push(JSON.stringify({ o: instanceId, t, k: batch }));
      batch = [];
      size = 0;
    }
    batch.push(k);
    size += len;
  }
  payloads.push(JSON.stringify({ ...head, ...(batch.length ? { k: batch } : {}) }));
  return payloads;
}

export function decodeChanges(payload: string): { origin: string; changes: ChangeSet; sentAtMs?: number } | undefined {
  try {
    const p = JSON.parse(payload) as Payload;
    const changes = new ChangeSet();
    for (const k of p.k ?? []) if (typeof k === "string") changes.add(k);
    for (const a of p.a ?? []) if (typeof a === "string") changes.addAllOf(a as ChangeKind);
    return typeof p.o === "string" ? { origin: p.o, changes, ...(typeof p.t === "number" && Number.isFinite(p.t) ? { sentAtMs: p.t } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

export interface ListenerLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Publishing, for every client of a PostgreSQL database (servers and the CLI alike): the changes
 * go out with the writing transaction's commit.
 */
export function pgTransport(instanceId: string): ChangeTransport {
  return {
    async publishInTransaction(tx, changes) {
      for (const payload of encodeChanges(instanceId, changes)) {
        await tx.$executeRawUnsafe("SELECT pg_notify($1, $2)", CHANGE_CHANNEL, payload);
      }
    },
  };
}

/** Listening: one connection per server instance (see the top of this file). */
export class PgChangeChannel {
  private client: pg.Client | undefined;
  private stopped = false;
  private attempt = 0;
  private everConnected = false;
  private timer: NodeJS.Timeout | undefined;
  /** Resolves each time the listener (re)connects; tests wait on it instead of sleeping. */
  private connectedWaiters: Array<() => void> = [];
  /** The backend pid of the listening connection (tests terminate it to prove recovery). */
  listenerPid: number | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly bus: ChangeBus,
    private readonly log: ListenerLog,
  ) {}

  /** Connects the listener; rejects when the first connection fails (start-up should stop then). */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private readonly syncWaiters = new Map<string, () => void>();

  /**
   * Resolves once every change committed before the call has been applied here: PostgreSQL
   * delivers notifications in commit order, so a marker sent now arrives after all of them.
   */
  async sync(): Promise<void> {
    await this.whenConnected();
    const marker = `sync:${randomUUID()}`;
    const arrived = new Promise<void>((resolve) => this.syncWaiters.set(marker, resolve));
    await this.client!.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, JSON.stringify({ o: marker })]);
    await arrived;
  }

  /** Resolves once the listener is connected (immediately when it is). */
  whenConnected(): Promise<void> {
    if (this.client && this.bus.healthy.connected) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: "toolgate-listener" });
    client.on("error", (e) => this.lost(client, e));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    client.on("notification", (msg) => {
      if (msg.channel !== CHANGE_CHANNEL || !msg.payload) return;
      const decoded = decodeChanges(msg.payload);
      if (decoded && this.syncWaiters.has(decoded.origin)) {
        this.syncWaiters.get(decoded.origin)!();
        this.syncWaiters.delete(decoded.origin);
        return;
      }
      if (!decoded || decoded.origin === this.bus.instanceId) return; // own commits were applied locally
      this.bus.receive(decoded.changes, decoded.sentAtMs);
    });
    let pid;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      pid = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    } catch (e) {
      client.end().catch(() => undefined);
      throw e;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.listenerPid = pid.rows[0]?.pid;
    this.bus.setHealth({ connected: true });
    // Whatever happened while nobody listened is unknown: drop every cache (not on the first start).
    // reset() clears synchronously before it awaits the reloads, so no stale entry is read as fresh.
    if (this.everConnected) {
      await this.bus.reset();
      this.log.info({ attempts: this.attempt }, "cache invalidation listener reconnected; caches dropped");
    }
    this.everConnected = true;
    this.attempt = 0;
    for (const w of this.connectedWaiters.splice(0)) w();
  }

  private lost(client: pg.Client, e: unknown): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.listenerPid = undefined;
    this.bus.setHealth({ connected: false, problem: "cache invalidation listener disconnected" });
    this.log.warn({ err: e }, "cache invalidation listener lost its connection; reconnecting");
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt++;
    this.timer = setTimeout(() => {
      this.connect().catch((e) => {
        this.log.warn({ err: e, attempt: this.attempt }, "cache invalidation listener could not reconnect");
        this.scheduleReconnect();
      });
    }, delay);
    this.timer.unref();
  }
}
