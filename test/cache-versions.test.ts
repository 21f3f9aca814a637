// Cross-instance invalidation: a failed reload is retried on the next poll.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CacheVersions } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

describe("CacheVersions.poll", () => {
  it("retries a reload that failed until it succeeds, then stops", async () => {
    const other = new CacheVersions(h.db); // another instance's view of the same database
    await other.prime();
    let calls = 0;
    let fail = true;
    other.on("access", async () => {
      calls++;
      if (fail) throw new Error("transient");
    });
    await h.db.$transaction((tx) => h.services.versions.bump(tx, "access"));
    await expect(other.poll()).rejects.toThrow(/retrying/);
    expect(calls).toBe(1);
    fail = false;
    await other.poll();
    expect(calls).toBe(2);
    await other.poll();
    expect(calls).toBe(2); // seen now: no more reloads
  });
});
