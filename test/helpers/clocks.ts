// Clocks for tests that need time to pass without sleeping (src/shared/clock.ts has ManualClock,
// which stands still).
import type { Clock } from "../../src/shared/clock";

/** The real time plus an offset a test moves forward, e.g. past a grace period, without a sleep. */
export class OffsetClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
