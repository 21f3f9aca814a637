// A job that runs one at a time: a request while it runs makes it run once more right after, so a
// request is never lost in the moment a run is finishing (the webhook dispatcher, the audit-trail
// consumers: each is woken by commits that may arrive at any point of a run).
export class SerialJob<T> {
  private running: Promise<T> | undefined;
  private again = false;

  constructor(private readonly job: () => Promise<T>) {}

  /** Runs the job, or joins the current run and asks for one more; resolves with the last run's result. */
  run(): Promise<T> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      let result: T;
      do {
        this.again = false;
        result = await this.job();
      } while (this.again);
      return result;
    })();
    this.running = run.finally(() => {
      this.running = undefined;
      if (this.again) void this.run().catch(() => undefined); // asked for between the last check and now
    });
    return this.running;
  }

  /** The current run, if any (to wait for it at shutdown). */
  idle(): Promise<void> {
    return (this.running ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    );
  }
}
