// Revoked access tokens (RFC 7009) by jti. The database row (RevokedToken) makes a revocation
// survive a restart and reach other instances; the in-memory denylist answers the hot paths
// without a query. A row is only needed until the token would have expired anyway, so rows and
// entries past their expiry are pruned.
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import type { Clock } from "../../shared/clock";
import { coalescedReload } from "../../shared/coalesced-reload";

const PRUNE_EVERY = 256;

export class RevocationList {
  /** jti -> expiry (ms) of the revoked token. */
  private revoked = new Map<string, number>();
  private writes = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly versions: CacheVersions,
  ) {
    versions.on("revocations", () => this.load());
  }

  /** Loads every unexpired revocation (at start, and when another instance revoked something). */
  /** Loads every unexpired revocation (at start, and when another instance revoked something). */
  readonly load = coalescedReload(() => this.loadNow());

  private async loadNow(): Promise<void> {
    const rows = await this.db.revokedToken.findMany({ where: { expiresAt: { gt: this.clock.now() } }, select: { jti: true, expiresAt: true } });
    const map = new Map<string, number>();
    for (const r of rows) map.set(r.jti, r.expiresAt.getTime());
    // Keep local entries the reload cannot see yet (a revoke whose row committed after the query began).
    for (const [jti, exp] of this.revoked) if (!map.has(jti)) map.set(jti, exp);
    this.revoked = map;
    this.prune();
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  /** Persists the revocation, then makes it effective in this process at once. Idempotent. */
  async revoke(jti: string, expiresAt: Date): Promise<void> {
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      await tx.revokedToken.upsert({ where: { jti }, create: { jti, expiresAt, revokedAt: now }, update: {} });
      // Rows of tokens that have expired anyway are dead weight (indexed delete, rare).
      if (++this.writes % PRUNE_EVERY === 0) await tx.revokedToken.deleteMany({ where: { expiresAt: { lte: now } } });
      await this.versions.bump(tx, "revocations");
    });
    this.revoked.set(jti, expiresAt.getTime());
    if (this.writes % PRUNE_EVERY === 0) this.prune();
  }

  private prune(): void {
    const nowMs = this.clock.now().getTime();
    for (const [jti, exp] of this.revoked) if (exp <= nowMs) this.revoked.delete(jti);
  }

  get size(): number {
    return this.revoked.size;
  }
}
