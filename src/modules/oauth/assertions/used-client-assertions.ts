// Single use of a client assertion (RFC 7523 §3 item 7: the server "MAY ensure that JWTs are not
// replayed by maintaining the set of used jti values for the length of time for which the JWT
// would be considered valid"): each client_id + jti is recorded here until the assertion's exp, in
// the database so every instance sees it. Same pattern as signin/used-login-tickets.ts.
import type { Db } from "../../../storage";
import { isUniqueViolation } from "../../../storage";
import type { Clock } from "../../../shared/clock";

/** Expired records are deleted on every PRUNE_EVERY-th use (a jwt-bearer grant records one per token). */
const PRUNE_EVERY = 64;

export class UsedClientAssertions {
  private uses = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Records the assertion's jti for its client; false when it was used before. */
  async consume(clientId: string, jti: string, expiresAt: Date): Promise<boolean> {
    const now = this.clock.now();
    try {
      // The space cannot occur in a jti we accept (assertion-verifier.ts), so the key is unambiguous.
      await this.db.usedClientAssertion.create({ data: { key: `${clientId} ${jti}`, expiresAt } });
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
    // An expired assertion is refused by its exp before its jti is looked at, so its record can go.
    // The index on expiresAt makes this delete cost what it removes, not the table.
    if (++this.uses % PRUNE_EVERY === 1) await this.db.usedClientAssertion.deleteMany({ where: { expiresAt: { lt: now } } });
    return true;
  }
}
