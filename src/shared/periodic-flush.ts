// Work buffered in memory off a request path and written in batches: on a timer, on demand, and at
// shutdown, one flush at a time (the clients' last-used stamps, the audit trail's counted events).
export class PeriodicFlush {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly flushNow: () => Promise<void>) {}

  /** Writes what is buffered; concurrent calls run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(() => this.flushNow());
    return this.flushing;
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    this.timer = setInterval(() => this.flush().catch(onError), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
