// A bounded, per-entry, load-on-miss cache for the hot paths (docs/decisions/0001-per-entry-caches.md).
//
// - peek(key) answers a hit synchronously (the token, introspection and sdk-policy paths stay
//   free of promise hops and of SQL on a hit); get(key) loads a miss with the owner's indexed
//   query, one load per key at a time however many callers miss together.
// - Bounded: least recently used entries are evicted past `maxEntries`; negative answers (null:
//   "no such client") live in a separate, smaller LRU so junk lookups cannot evict real entries.
// - Invalidation races: a load that was running when its key was invalidated (or the cache
//   cleared) may have read the old row, so its result answers the callers that waited for it but
//   is not kept.
// - Fail closed: while the change bus cannot hear other instances, entries older than the bus's
//   age limit count as misses and are reloaded before use. A load that fails rejects every caller
//   and nothing is cached.
import type { ChangeSubscriber } from "../storage/change-bus";

/** An answer that needs an entry not cached yet: the caller loads it (one async step) and asks again. */
export const NOT_CACHED: unique symbol = Symbol("not cached");
export type NotCached = typeof NOT_CACHED;

/** A hit answered synchronously, or a miss being loaded: what `get` (and the registries over it) return. */
export type MaybePromise<T> = T | Promise<T>;

export interface EntryCacheOptions<V> {
  name: string;
  maxEntries: number;
  /** Loads one entry; null = "does not exist" (kept as a negative entry). */
  load(key: string): Promise<V | null>;
  /** The maximum age of an entry now (undefined = no limit); see ChangeBus.maxEntryAgeMs. */
  maxAgeMs?: () => number | undefined;
  now?: () => number;
}

interface Entry<V> {
  value: V | null;
  at: number;
}

interface Inflight<V> {
  promise: Promise<V | null>;
  stale: boolean;
}

export class EntryCache<V> implements ChangeSubscriber {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly negatives = new Map<string, Entry<V>>();
  private readonly inflight = new Map<string, Inflight<V>>();
  private readonly now: () => number;
  readonly stats = { hits: 0, misses: 0, evictions: 0, invalidations: 0 };

  constructor(private readonly options: EntryCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  get name(): string {
    return this.options.name;
  }

  /** The cached value (null = known not to exist), or undefined on a miss. */
  peek(key: string): V | null | undefined {
    let e = this.entries.get(key);
    const map = e ? this.entries : this.negatives;
    e ??= this.negatives.get(key);
    if (!e) return undefined;
    const maxAge = this.options.maxAgeMs?.();
    if (maxAge !== undefined && this.now() - e.at > maxAge) {
      map.delete(key);
      return undefined;
    }
    // Most recently used last (Map keeps insertion order). Only worth the two map operations once
    // the cache is half full: below that nothing is evicted soon, and the hot path stays cheaper.
    if (map.size > this.options.maxEntries / 2) {
      map.delete(key);
      map.set(key, e);
    }
    this.stats.hits++;
    return e.value;
  }

  /** The value, synchronously on a hit; otherwise a promise of the loaded value. */
  get(key: string): MaybePromise<V | null> {
    const hit = this.peek(key);
    return hit !== undefined ? hit : this.load(key);
  }

  /** Loads (or joins the running load of) one entry. */
  load(key: string): Promise<V | null> {
    const running = this.inflight.get(key);
    if (running && !running.stale) return running.promise;
    this.stats.misses++;
    const flight: Inflight<V> = { promise: undefined as unknown as Promise<V | null>, stale: false };
    flight.promise = this.options.load(key).then(
      (value) => {
        if (this.inflight.get(key) === flight) this.inflight.delete(key);
        if (!flight.stale) this.store(key, value);
        return value;
      },
      (e) => {
        if (this.inflight.get(key) === flight) this.inflight.delete(key);
        throw e;
      },
    );
    this.inflight.set(key, flight);
    return flight.promise;
  }

  private store(key: string, value: V | null): void {
    const map = value === null ? this.negatives : this.entries;
    const max = value === null ? Math.max(1, Math.floor(this.options.maxEntries / 4)) : this.options.maxEntries;
    map.delete(key);
    map.set(key, { value, at: this.now() });
    while (map.size > max) {
      map.delete(map.keys().next().value!);
      this.stats.evictions++;
    }
  }

  invalidate(key: string): void {
    this.stats.invalidations++;
    this.entries.delete(key);
    this.negatives.delete(key);
    const running = this.inflight.get(key);
    if (running) running.stale = true;
  }

  clear(): void {
    this.stats.invalidations++;
    this.entries.clear();
    this.negatives.clear();
    for (const f of this.inflight.values()) f.stale = true;
  }

  get size(): number {
    return this.entries.size + this.negatives.size;
  }
}
