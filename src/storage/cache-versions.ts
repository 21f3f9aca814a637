// Cross-instance cache invalidation. Every write that changes a cached source bumps a named
// version row in the same transaction; each process polls the table (one small SELECT every
// TOOLGATE_CACHE_POLL_MS, off the request path) and reloads the caches whose version moved.
// In-process invalidation is immediate: bump() also notifies local listeners after commit via
// notifyLocal(), so a test (or the single instance) never waits for the poll.
import type { Db, DbOrTx } from "./prisma";

export type CacheName = "keys" | "clients" | "resource_servers" | "revocations" | "access" | "policies";

type Listener = () => void | Promise<void>;

export class CacheVersions {
  private known = new Map<string, number>();
  private listeners = new Map<string, Set<Listener>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Db) {}

  /** Call inside the writing transaction. */
  async bump(tx: DbOrTx, name: CacheName): Promise<void> {
    await tx.cacheVersion.upsert({ where: { name }, create: { name, version: 1 }, update: { version: { increment: 1 } } });
  }

  /** Call after the transaction committed: reloads this process's caches now. */
  async notifyLocal(...names: CacheName[]): Promise<void> {
    for (const name of names) for (const l of this.listeners.get(name) ?? []) await l();
  }

  on(name: CacheName, listener: Listener): void {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name)!.add(listener);
  }

  /** Reads the current versions so the first poll does not reload everything. */
  async prime(): Promise<void> {
    for (const row of await this.db.cacheVersion.findMany()) this.known.set(row.name, row.version);
  }

  /**
   * Reloads the caches whose version moved. A version counts as seen only once every listener of
   * that name reloaded successfully, so a reload that fails (e.g. a transient database error) is
   * retried on the next poll instead of leaving this instance stale until an unrelated write.
   */
  async poll(): Promise<void> {
    const rows = await this.db.cacheVersion.findMany();
    const failures: unknown[] = [];
    for (const row of rows) {
      if (this.known.get(row.name) === row.version) continue;
      const results = await Promise.allSettled([...(this.listeners.get(row.name) ?? [])].map(async (l) => l()));
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed.length === 0) this.known.set(row.name, row.version);
      else failures.push(...failed.map((f) => f.reason));
    }
    if (failures.length > 0) throw new AggregateError(failures, "cache reload failed; retrying on the next poll");
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    this.timer = setInterval(() => this.poll().catch(onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
