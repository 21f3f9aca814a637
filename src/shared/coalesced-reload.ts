// Reload coordination for the in-memory caches. A write calls reload() after its commit and must
// see its own change when the promise resolves; a load already running may have read before that
// commit. So: at most one load runs at a time (an older snapshot can never overwrite a newer one),
// and every caller that arrives while a load runs shares ONE follow-up load, which starts after the
// running one and therefore after the caller's commit. A burst of N writes costs at most two loads.
export function coalescedReload(load: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const run = load().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  return () => {
    if (!running) return start();
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}
