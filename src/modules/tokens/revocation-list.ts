// Revoked access tokens: by jti (RFC 7009 revocation of one access token) and by token family
// (`fid`: every access token minted from one refresh-token chain, revoked on refresh-token reuse,
// RFC 7009 revocation of a refresh token, or a replayed authorization code). The database rows
// (RevokedToken, RevokedFamily) make a revocation survive a restart and reach other instances;
// the in-memory denylists answer the hot paths without a query. A row is only needed until the
// tokens it covers would have expired anyway, so rows and entries past their expiry are pruned.
// The lists are small by construction (unexpired revocations only), so they are loaded whole at
// start; another instance's revocation arrives on the change bus with its expiry in the key
// ("<expiry ms>:<jti or fid>", storage/change-tracking.ts) and is added without a query.
import type { ChangeBus, Db, Tx } from "../../storage";
import type { Clock } from "../../shared/clock";
import { coalescedReload } from "../../shared/coalesced-reload";
import { MAX_TOKEN_LIFETIME_S } from "./key-schedule";

const PRUNE_EVERY = 256;

export class RevocationList {
  /** jti -> expiry (ms) of the revoked token. */
  private revoked = new Map<string, number>();
  /** fid -> when the family's newest possible access token has expired (ms). */
  private families = new Map<string, number>();
  private writes = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    bus: ChangeBus,
    onReloadError: (e: unknown) => void = () => undefined,
  ) {
    const reload = () => void this.load().catch(onReloadError);
    bus.subscribe("revoked_token", { invalidate: (key) => addEntry(this.revoked, key), clear: reload });
    bus.subscribe("revoked_family", { invalidate: (key) => addEntry(this.families, key), clear: reload });
    bus.onReset(() => this.load());
  }

  /** Loads every unexpired revocation (at start, and when another instance revoked something). */
  readonly load = coalescedReload(() => this.loadNow());

  private async loadNow(): Promise<void> {
    const now = this.clock.now();
    const [rows, familyRows] = await Promise.all([
      this.db.revokedToken.findMany({ where: { expiresAt: { gt: now } }, select: { jti: true, expiresAt: true } }),
      this.db.revokedFamily.findMany({ where: { expiresAt: { gt: now } }, select: { familyId: true, expiresAt: true } }),
    ]);
    this.revoked = merged(
      rows.map((r) => [r.jti, r.expiresAt.getTime()]),
      this.revoked,
    );
    this.families = merged(
      familyRows.map((r) => [r.familyId, r.expiresAt.getTime()]),
      this.families,
    );
    this.prune();
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  isFamilyRevoked(familyId: string): boolean {
    return this.families.has(familyId);
  }

  /** Persists the revocation, then makes it effective in this process at once. Idempotent. */
  async revoke(jti: string, expiresAt: Date): Promise<void> {
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      await tx.revokedToken.upsert({ where: { jti }, create: { jti, expiresAt, revokedAt: now }, update: {} });
      // Rows of tokens that have expired anyway are dead weight (indexed delete, rare).
      if (++this.writes % PRUNE_EVERY === 0) await tx.revokedToken.deleteMany({ where: { expiresAt: { lte: now } } });
    });
    this.revoked.set(jti, expiresAt.getTime());
    if (this.writes % PRUNE_EVERY === 0) this.prune();
  }

  /**
   * Revokes a token family: every access token carrying `fid = familyId` is inactive from now on.
   * `alsoInTx` runs in the same transaction (the sign-in module retires the family's refresh
   * tokens there), so the chain and its access tokens die together or not at all. The entry is
   * kept until every access token minted before now has expired (the longest token lifetime).
   * Idempotent.
   */
  async revokeFamily(familyId: string, alsoInTx?: (tx: Tx) => Promise<unknown>): Promise<void> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + MAX_TOKEN_LIFETIME_S * 1000);
    await this.db.$transaction(async (tx) => {
      await alsoInTx?.(tx);
      await tx.revokedFamily.upsert({ where: { familyId }, create: { familyId, expiresAt, revokedAt: now }, update: { expiresAt } });
      if (++this.writes % PRUNE_EVERY === 0) await tx.revokedFamily.deleteMany({ where: { expiresAt: { lte: now } } });
    });
    this.families.set(familyId, expiresAt.getTime());
  }

  private prune(): void {
    const nowMs = this.clock.now().getTime();
    for (const map of [this.revoked, this.families]) for (const [key, exp] of map) if (exp <= nowMs) map.delete(key);
  }

  get size(): number {
    return this.revoked.size;
  }

  get familyCount(): number {
    return this.families.size;
  }
}

/**
 * The loaded rows, plus local entries the reload cannot see yet (a revoke whose row committed
 * after the query began). Later expiries win.
 */
function merged(rows: Array<[string, number]>, local: ReadonlyMap<string, number>): Map<string, number> {
  const map = new Map(rows);
  for (const [key, exp] of local) if ((map.get(key) ?? 0) < exp) map.set(key, exp);
  return map;
}

/** "<expiry ms>:<id>" from the change bus -> the denylist entry. */
function addEntry(map: Map<string, number>, key: string): void {
  const at = key.indexOf(":");
  const exp = Number(key.slice(0, at));
  const id = key.slice(at + 1);
  if (Number.isFinite(exp) && id && (map.get(id) ?? 0) < exp) map.set(id, exp);
}
