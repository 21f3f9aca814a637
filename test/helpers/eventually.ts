// Waiting for another process (a second server instance) without a fixed sleep: poll with a bound.

/** Polls `check` until it holds; throws naming `what` when it does not within `withinMs`. */
export async function eventually(check: () => Promise<boolean>, what: string, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
