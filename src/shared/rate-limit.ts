// A fixed-window counter per key (a client address), in memory per instance: at most `limit`
// events per `windowMs`; beyond that, the seconds until the window ends (for Retry-After).
// Bounded: at most `maxKeys` keys are tracked; when full, the oldest window is forgotten first
// (Map keeps insertion order), so a flood of addresses cannot grow memory.
import type { Clock } from "./clock";

interface Window {
  start: number;
  count: number;
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Counts one event for `key`: 0 when allowed, else the seconds to wait (the event is not counted). */
  take(key: string): number {
    const now = this.clock.now().getTime();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.limit) return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    w.count++;
    return 0;
  }
}
