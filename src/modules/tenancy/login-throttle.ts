// Slows down password guessing: after MAX_FAILURES wrong passwords for one email within WINDOW_MS,
// further attempts for that email are refused without checking the password until the window
// has passed. In memory per instance (each instance limits on its own; a shared limiter belongs
// in front of several instances). Counting per email, not per IP, also stops distributed guessing
// of one account; the price is that a guesser can lock a known email out for the window.
import type { Clock } from "../../shared/clock";

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60 * 1000;
const MAX_TRACKED = 100_000;

export class LoginThrottle {
  private failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  private recent(key: string): number[] {
    const cutoff = this.clock.now().getTime() - WINDOW_MS;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until the key may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < MAX_FAILURES) return 0;
    return Math.max(1, Math.ceil((list[0]! + WINDOW_MS - this.clock.now().getTime()) / 1000));
  }

  fail(key: string): void {
    if (this.failures.size >= MAX_TRACKED && !this.failures.has(key)) {
      // Bounded memory: forget the oldest entry (Map keeps insertion order).
      this.failures.delete(this.failures.keys().next().value!);
    }
    this.failures.set(key, [...this.recent(key), this.clock.now().getTime()]);
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }
}
