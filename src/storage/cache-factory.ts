// Builds the hot-path caches: each is an EntryCache bounded by TOOLGATE_CACHE_MAX_ENTRIES,
// subscribed to the change kinds it holds on the bus, and age-limited while the bus cannot hear
// other instances (fail closed). Modules receive this factory, never the bus itself.
import { EntryCache } from "../shared/entry-cache";
import { unavailable } from "../shared/errors";
import type { ChangeBus, ChangeKind } from "./change-bus";

export class CacheFactory {
  /** Every cache built (one per kind and holder, all at start-up): the metrics read their stats at scrape time. */
  readonly built: EntryCache<unknown>[] = [];

  constructor(
    readonly bus: ChangeBus,
    readonly maxEntries: number,
  ) {}

  /** A cache of `kind` entries: a change "<kind>:<key>" drops the entry `key`. */
  create<V>(kind: ChangeKind, load: (key: string) => Promise<V | null>): EntryCache<V> {
    // A load that fails (database unreachable) fails closed: the hot path answers 503 or inactive.
    const failClosed = (key: string) => load(key).catch((e) => Promise.reject(unavailable(e)));
    const cache = new EntryCache<V>({ name: kind, maxEntries: this.maxEntries, load: failClosed, maxAgeMs: () => this.bus.maxEntryAgeMs() });
    this.bus.subscribe(kind, cache);
    this.built.push(cache as EntryCache<unknown>);
    return cache;
  }
}
