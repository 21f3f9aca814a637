// The per-entry cache every hot path uses (src/shared/entry-cache.ts): bounded, single-flight,
// never keeps a load that raced an invalidation, never caches a failure, and honours the age
// limit the change bus sets while other instances cannot be heard.
import { describe, expect, it } from "vitest";
import { EntryCache } from "../src/shared/entry-cache";

/** A loader whose answers the test releases one by one. */
function controlledLoader() {
  const pending: Array<{ key: string; resolve: (v: string | null) => void; reject: (e: unknown) => void }> = [];
  let calls = 0;
  return {
    load: (key: string) =>
      new Promise<string | null>((resolve, reject) => {
        calls++;
        pending.push({ key, resolve, reject });
      }),
    get calls() {
      return calls;
    },
    next() {
      return pending.shift()!;
    },
  };
}

describe("EntryCache", () => {
  it("answers a hit synchronously and loads a miss once however many callers miss together", async () => {
    const loader = controlledLoader();
    const cache = new EntryCache<string>({ name: "t", maxEntries: 10, load: loader.load });
    const a = cache.get("k");
    const b = cache.get("k");
    expect(a).toBeInstanceOf(Promise);
    expect(loader.calls).toBe(1);
    loader.next().resolve("v1");
    expect(await a).toBe("v1");
    expect(await b).toBe("v1");
    expect(cache.get("k")).toBe("v1"); // a hit: no promise
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1 });
  });

  it("does not keep a load that an invalidation overtook, but answers its waiting callers", async () => {
    const loader = controlledLoader();
    const cache = new EntryCache<string>({ name: "t", maxEntries: 10, load: loader.load });
    const first = cache.get("k");
    cache.invalidate("k"); // a write committed while the load ran: it may have read the old row
    loader.next().resolve("old");
    expect(await first).toBe("old");
    expect(cache.peek("k")).toBeUndefined();
    const second = cache.get("k");
    loader.next().resolve("new");
    expect(await second).toBe("new");
    expect(cache.peek("k")).toBe("new");
    // clear() overtakes every running load too.
    cache.invalidate("k");
    const third = cache.get("k");
    cache.clear();
    loader.next().resolve("stale");
    await third;
    expect(cache.peek("k")).toBeUndefined();
  });

  it("never caches a failed load", async () => {
    const loader = controlledLoader();
    const cache = new EntryCache<string>({ name: "t", maxEntries: 10, load: loader.load });
    const failing = cache.get("k");
    loader.next().reject(new Error("database unreachable"));
    await expect(failing).rejects.toThrow("database unreachable");
    expect(cache.peek("k")).toBeUndefined();
    const retry = cache.get("k");
    expect(loader.calls).toBe(2);
    loader.next().resolve("v");
    expect(await retry).toBe("v");
  });

  it("is bounded: least recently used entries go first; negative answers have their own, smaller bound", async () => {
    const cache = new EntryCache<string>({ name: "t", maxEntries: 4, load: async (k) => (k.startsWith("x") ? null : `v${k}`) });
    for (const k of ["1", "2", "3", "4"]) await cache.get(k);
    expect(cache.get("1")).toBe("v1"); // used: now the most recent
    await cache.get("5");
    expect(cache.peek("2")).toBeUndefined(); // the least recently used went
    expect(cache.peek("1")).toBe("v1");
    // Unknown keys (null) cannot push real entries out: they live in an LRU of maxEntries / 4.
    for (let i = 0; i < 20; i++) expect(await cache.get(`x${i}`)).toBeNull();
    expect(cache.peek("x19")).toBeNull();
    expect(cache.peek("x0")).toBeUndefined();
    for (const k of ["1", "3", "4", "5"]) expect(cache.peek(k)).toBe(`v${k}`);
    expect(cache.size).toBe(5);
    expect(cache.stats.evictions).toBeGreaterThan(0);
  });

  it("reloads entries older than the age limit while one is in force (listener down)", async () => {
    let now = 1_000;
    let limit: number | undefined;
    let loads = 0;
    const cache = new EntryCache<string>({ name: "t", maxEntries: 10, load: async () => `v${++loads}`, maxAgeMs: () => limit, now: () => now });
    expect(await cache.get("k")).toBe("v1");
    now += 60_000;
    expect(cache.get("k")).toBe("v1"); // no limit while notifications flow
    limit = 3_000;
    now += 1;
    expect(cache.peek("k")).toBeUndefined(); // too old to trust now
    expect(await cache.get("k")).toBe("v2");
    now += 2_999;
    expect(cache.get("k")).toBe("v2");
  });
});
