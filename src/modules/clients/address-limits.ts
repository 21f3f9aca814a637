// Per-address limits on what anyone may ask for without credentials: dynamic client registrations
// (POST /oauth/register) and CIMD document fetches. Counted in the database (RateWindow), like the
// login throttle's counts, so every instance on one PostgreSQL database shares one count per
// address and a restart forgets nothing (docs/decisions/0030-attempts-counted-before-checked.md).
//
// A fixed window per (limit, address), opened by the address's first event: at most `limit`
// events until it ends; beyond that the seconds until it ends (for Retry-After), and the refused
// event is not counted. One conditional increment per allowed event (`count < limit` within the
// window), so concurrent events on several instances never pass the limit together; a missing or
// ended window is created or restarted by a compare-and-set on its end, never resetting a live one.
// A dead row (its window ended) is deleted by prune(), by index.
import type { Db } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import { normaliseAddress } from "../../shared/client-address";

/** One named limit: `take(address)` counts an event and answers 0, or the seconds to wait. */
export interface AddressRateLimit {
  take(address: string | undefined): Promise<number>;
}

export class AddressRateLimits {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** At most `limit` events per `windowMs` per client address; `name` keeps its counts apart from other limits'. */
  limit(name: string, limit: number, windowMs: number): AddressRateLimit {
    return { take: (address) => this.take(`${name}:${normaliseAddress(address)}`, limit, windowMs) };
  }

  private async take(key: string, limit: number, windowMs: number): Promise<number> {
    const now = this.clock.now();
    const fresh = { count: 1, endsAt: new Date(now.getTime() + windowMs) };
    for (;;) {
      const counted = await this.db.rateWindow.updateMany({ where: { key, endsAt: { gt: now }, count: { lt: limit } }, data: { count: { increment: 1 } } });
      if (counted.count === 1) return 0;
      const row = await this.db.rateWindow.findUnique({ where: { key } });
      if (!row) {
        try {
          await this.db.rateWindow.create({ data: { key, ...fresh } });
          return 0;
        } catch (e) {
          if (!isUniqueViolation(e)) throw e; // opened by a concurrent event: count again
        }
      } else if (row.endsAt > now) {
        if (row.count >= limit) return Math.max(1, Math.ceil((row.endsAt.getTime() - now.getTime()) / 1000));
      } else {
        const restarted = await this.db.rateWindow.updateMany({ where: { key, endsAt: row.endsAt }, data: fresh });
        if (restarted.count === 1) return 0;
      }
    }
  }

  /** Deletes the rows of ended windows (every limit's), by index; returns how many. */
  async prune(): Promise<number> {
    return (await this.db.rateWindow.deleteMany({ where: { endsAt: { lte: this.clock.now() } } })).count;
  }
}
