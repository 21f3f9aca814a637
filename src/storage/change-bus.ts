// The one channel by which a committed write reaches every in-memory cache, in this process and in
// the others (docs/decisions/0001-per-entry-caches.md).
//
// A change names one cache entry as "<kind>:<key>" (e.g. "client:tgc_x", "member:<tenant>:<user>");
// the unit of work (unit-of-work.ts) derives them from the rows a transaction wrote, so no service
// names one. A cache subscribes to the kinds it holds and drops exactly the entries named. "Drop
// everything of a kind" (a large batch) and "drop everything" (after a missed notification) exist
// for when the exact entries cannot be known.
//
// Transports: in this process apply() runs synchronously after commit. Between processes, the
// PostgreSQL channel (pg-notifications.ts) delivers the same changes by NOTIFY; on SQLite one
// server owns the file and the SQLite watcher (sqlite-watch.ts) notices writes of the CLI.

export type ChangeKind =
  | "member"
  | "bindings"
  | "role"
  | "client"
  | "connection"
  | "server"
  | "resource"
  | "policy"
  | "keys"
  | "revoked_token"
  | "revoked_family"
  | "webhooks"
  | "trusts"
  | "agent_connection";

export interface ChangeSubscriber {
  /** One entry changed; `key` is what follows "<kind>:". */
  invalidate(key: string): void;
  /** Every entry of the kind may have changed. */
  clear(): void;
}

/** A batch of changes as one transaction produced it. */
export class ChangeSet {
  readonly keys = new Set<string>();
  readonly allOf = new Set<ChangeKind>();

  add(change: string): void {
    this.keys.add(change);
  }

  addAllOf(kind: ChangeKind): void {
    this.allOf.add(kind);
  }

  get empty(): boolean {
    return this.keys.size === 0 && this.allOf.size === 0;
  }
}

/** Splits "<kind>:<key>" at the first colon (keys may contain colons: URLs). */
export function splitChange(change: string): [string, string] {
  const i = change.indexOf(":");
  return i < 0 ? [change, ""] : [change.slice(0, i), change.slice(i + 1)];
}

/**
 * How the bus talks to other processes. publishInTransaction runs inside the writing transaction
 * (PostgreSQL NOTIFY is delivered on commit only, so commit and publication are one atomic step).
 */
export interface ChangeTransport {
  publishInTransaction(tx: { $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<unknown> }, changes: ChangeSet): Promise<void>;
}

export interface BusHealth {
  /** false while notifications from other instances may be missed (listener down). */
  readonly connected: boolean;
  /** The reason, for /readyz. */
  readonly problem?: string;
}

export class ChangeBus {
  private readonly subscribers = new Map<string, Set<ChangeSubscriber>>();
  private readonly resetListeners = new Set<() => void | Promise<void>>();
  private transport: ChangeTransport | undefined;
  private health: BusHealth = { connected: true };
  /** How old a cached entry may be while the bus cannot hear other instances (ms). */
  private staleAfterMs: number | undefined;
  /**
   * Counters for operators (read by the metrics module at scrape time) and tests. Lag: from the
   * writer's publication (inside its transaction, just before commit) to this process applying
   * the changes, over the change sets received from other instances that carried a send time.
   */
  readonly stats = { applied: 0, received: 0, resets: 0, lagSamples: 0, lagMsTotal: 0, lastLagMs: 0 };

  constructor(readonly instanceId: string) {}

  subscribe(kind: ChangeKind, subscriber: ChangeSubscriber): void {
    if (!this.subscribers.has(kind)) this.subscribers.set(kind, new Set());
    this.subscribers.get(kind)!.add(subscriber);
  }

  /**
   * Called when every cache must be dropped (reconnect after a gap, an outside writer on SQLite).
   * What is loaded whole (keys, revocations) reloads here; reset() waits for it.
   */
  onReset(listener: () => void | Promise<void>): void {
    this.resetListeners.add(listener);
  }

  useTransport(transport: ChangeTransport | undefined): void {
    this.transport = transport;
  }

  /** Inside the writing transaction: hands the changes to the other instances (atomic with commit). */
  async publishInTransaction(tx: Parameters<ChangeTransport["publishInTransaction"]>[0], changes: ChangeSet): Promise<void> {
    if (this.transport && !changes.empty) await this.transport.publishInTransaction(tx, changes);
  }

  /** After commit (or from another instance): drops exactly the entries named. Synchronous. */
  apply(changes: ChangeSet): void {
    if (changes.empty) return;
    this.stats.applied++;
    for (const kind of changes.allOf) for (const s of this.subscribers.get(kind) ?? []) s.clear();
    for (const change of changes.keys) {
      const [kind, key] = splitChange(change);
      if (changes.allOf.has(kind as ChangeKind)) continue;
      for (const s of this.subscribers.get(kind) ?? []) s.invalidate(key);
    }
  }

  /** Changes that arrived from another instance; `sentAtMs`: the writer's clock at publication. */
  receive(changes: ChangeSet, sentAtMs?: number): void {
    this.stats.received++;
    this.apply(changes);
    if (sentAtMs !== undefined) {
      // Clocks of two hosts differ: a negative lag is skew, counted as none.
      const lag = Math.max(0, Date.now() - sentAtMs);
      this.stats.lagSamples++;
      this.stats.lagMsTotal += lag;
      this.stats.lastLagMs = lag;
    }
    this.arrived();
  }

  /** Drops everything (this process cannot know what it missed) and reloads what is held whole. */
  async reset(): Promise<void> {
    this.stats.resets++;
    for (const set of this.subscribers.values()) for (const s of set) s.clear();
    await Promise.allSettled([...this.resetListeners].map(async (l) => l()));
    this.arrived();
  }

  private arrivalWaiters: Array<() => void> = [];

  /** Resolves when the next news from outside this process was applied (tests wait on it, never sleep). */
  nextArrival(): Promise<void> {
    return new Promise((resolve) => this.arrivalWaiters.push(resolve));
  }

  private arrived(): void {
    for (const w of this.arrivalWaiters.splice(0)) w();
  }

  setHealth(health: BusHealth): void {
    this.health = health;
  }

  get healthy(): BusHealth {
    return this.health;
  }

  /** Entries older than this are reloaded before use while the listener is down (fail closed). */
  configureStaleness(ms: number): void {
    this.staleAfterMs = ms;
  }

  /** The age limit in force now: none while notifications flow, a few seconds while they may not. */
  maxEntryAgeMs(): number | undefined {
    return this.health.connected ? undefined : this.staleAfterMs;
  }
}
