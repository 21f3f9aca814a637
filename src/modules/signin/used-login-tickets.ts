// One password attempt per sign-in page: the login ticket carries a random nonce, and posting the
// page records it here. A second post of the same ticket (a replayed or scripted form) finds the
// nonce taken and is refused; a wrong password gets a new page with a new ticket. The record is
// shared by every instance (the database), and kept only until the ticket would have expired.
import type { Db } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";

export class UsedLoginTickets {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Records the ticket's nonce; false when it was posted before. */
  async consume(nonce: string, expiresAt: Date): Promise<boolean> {
    const now = this.clock.now();
    try {
      await this.db.usedLoginTicket.create({ data: { nonce, expiresAt } });
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
    // Expired records can never match a ticket again (the MAC'd expiry refuses it first). The
    // index on expiresAt makes this delete cost what it removes, not the table.
    await this.db.usedLoginTicket.deleteMany({ where: { expiresAt: { lt: now } } });
    return true;
  }
}
