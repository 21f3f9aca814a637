// "Last connected" stamps of clients, batched off the request path: the token endpoint only
// records the time in memory; flush() writes every pending stamp in one transaction, on a timer
// and at shutdown (no database write per token request:
// docs/decisions/0006-hot-paths-answer-from-memory.md). A stamp lost in a crash is a slightly
// older "last used" time, which is acceptable for a display field.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { PeriodicFlush } from "../../shared/periodic-flush";

export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private readonly batches = new PeriodicFlush(() => this.flushNow());

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Records that the client (row id) was used now. O(1), no I/O. */
  mark(clientRowId: string): void {
    this.pending.set(clientRowId, this.clock.now());
  }

  /** Writes pending stamps; concurrent calls run one after another. */
  flush(): Promise<void> {
    return this.batches.flush();
  }

  private async flushNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    try {
      await this.db.$transaction(async (tx) => {
        for (const [id, at] of batch) await tx.client.updateMany({ where: { id }, data: { lastUsedAt: at } });
      });
    } catch (e) {
      // Keep the stamps for the next attempt unless a newer one arrived meanwhile.
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      throw e;
    }
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    this.batches.start(intervalMs, onError);
  }

  stop(): Promise<void> {
    return this.batches.stop();
  }
}
