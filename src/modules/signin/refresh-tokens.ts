// Refresh tokens with rotation and reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): each use
// returns a new token of the same family and retires the old one; presenting a retired token means
// it was stolen or replayed, so the whole family is revoked. A family is also the `fid` claim of
// every access token minted from it: revoking a family must revoke those too, so the caller
// (oauth/token-families.ts) retires the refresh tokens with retireFamily() inside the transaction
// that records the family in the access-token denylist.
//
// Crash safety (docs/sign-in.md "Crash-safe rotation"):
// - One rotation is ONE transaction: the presented row is marked rotated and its successor inserted
//   together, so a crash (kill -9) leaves both or neither, never a family without a current token.
// - The successor is not random: it is HMAC-SHA-256 of the presented token under a key derived from
//   the master key. The server can therefore give a retry of the same token the same successor
//   without storing any token: a client whose answer was lost (crash after commit, dropped
//   connection, two concurrent requests) retries with the token it holds and its chain goes on.
// - A retry qualifies only if it comes from the token's client, within the grace after the
//   rotation, and the token is the IMMEDIATELY preceding one: its successor is the family's current
//   token (not rotated itself). A token two generations back, or any retry after the grace, is
//   reuse and revokes the family, as before; the grace never revives older tokens.
import type { Db, DbOrTx, Tx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { hashSecret, sha256Base64url } from "../../shared/crypto";

export const REFRESH_LIFETIME_S = 30 * 24 * 3600;
/** Default retry grace of a rotated refresh token (TOOLGATE_REFRESH_GRACE_SECONDS; config.ts bounds it to 0..60). */
export const REFRESH_GRACE_DEFAULT_S = 15;

export interface RefreshGrant {
  tenantId: string;
  clientId: string;
  userId: string;
  scope: string;
  resource: string;
  /** OpenID Connect: the original sign-in (session, time, factor ids), repeated in each refreshed ID token. */
  sessionId: string | null;
  authTime: Date | null;
  factors: string[] | null;
}

export interface RefreshRotationSettings {
  /** HMAC key a token's successor is derived with (derived from the master key; the same on every instance). */
  successorKey: Buffer;
  /** How long after its rotation a token may be presented again for the same successor, in seconds (0: never). */
  graceSeconds: number;
}

export type RotateResult =
  /** `token` is the successor: new, or the same as before when this is a retry within the grace. */
  | { ok: true; grant: RefreshGrant; token: string; familyId: string }
  | { ok: false; reuseDetected: false; reason: string }
  /** A retired token was presented: the caller must revoke `familyId` (refresh and access tokens). */
  | { ok: false; reuseDetected: true; familyId: string; reason: string };

type Row = Omit<RefreshGrant, "factors"> & { id: string; familyId: string; expiresAt: Date; rotatedAt: Date | null; revokedAt: Date | null; factors: unknown };

const grantOf = (row: Row): RefreshGrant => ({
  tenantId: row.tenantId,
  clientId: row.clientId,
  userId: row.userId,
  scope: row.scope,
  resource: row.resource,
  sessionId: row.sessionId,
  authTime: row.authTime,
  factors: (row.factors as string[] | null) ?? null,
});
const refused = (reason: string): RotateResult => ({ ok: false, reuseDetected: false, reason });
const reused = (familyId: string, reason: string): RotateResult => ({ ok: false, reuseDetected: true, familyId, reason });

export class RefreshTokens {
  private readonly graceMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: RefreshRotationSettings,
  ) {
    this.graceMs = settings.graceSeconds * 1000;
  }

  /** The first token of a family (random), written in the caller's transaction (the code redemption). */
  async issueIn(tx: Tx, familyId: string, grant: RefreshGrant): Promise<string> {
    const token = this.ids.token(32);
    await this.insert(tx, token, familyId, grant, this.clock.now());
    return token;
  }

  /** The grant behind a token of this client, without using it (null when unknown or not the client's). */
  async find(token: string, clientId: string): Promise<(RefreshGrant & { familyId: string }) | null> {
    const row = await this.db.refreshToken.findUnique({ where: { tokenHash: sha256Base64url(token) } });
    if (!row || row.clientId !== clientId) return null;
    return { ...grantOf(row), familyId: row.familyId };
  }

  /**
   * Exchanges `token` (which must belong to `clientId`) for its successor, in one transaction: the
   * first use rotates it; a retry of the immediately preceding token within the grace returns the
   * same successor and writes nothing; anything else that was rotated is reuse.
   */
  async rotate(token: string, clientId: string): Promise<RotateResult> {
    const tokenHash = sha256Base64url(token);
    const successor = this.successorOf(token);
    const now = this.clock.now();
    return this.db.$transaction(async (tx): Promise<RotateResult> => {
      let row: Row | null = await tx.refreshToken.findUnique({ where: { tokenHash } });
      if (!row || row.clientId !== clientId) return refused("refresh token unknown or issued to another client");
      if (row.revokedAt) return refused("refresh token revoked (its family was revoked)");
      if (row.expiresAt <= now) return refused("refresh token expired");
      if (!row.rotatedAt) {
        const won = await tx.refreshToken.updateMany({ where: { id: row.id, rotatedAt: null, revokedAt: null }, data: { rotatedAt: now } });
        if (won.count === 1) {
          await this.insert(tx, successor, row.familyId, grantOf(row), now);
          return { ok: true, grant: grantOf(row), token: successor, familyId: row.familyId };
        }
        // A concurrent request rotated (or revoked) it first and has committed: judge this one as its retry.
        row = await tx.refreshToken.findUnique({ where: { tokenHash } });
        if (!row?.rotatedAt || row.revokedAt) return refused("refresh token revoked while it was being rotated");
      }
      const elapsedMs = Math.max(0, now.getTime() - row.rotatedAt.getTime());
      if (elapsedMs >= this.graceMs) return reused(row.familyId, `rotated refresh token presented again ${Math.round(elapsedMs / 1000)} s after its rotation (grace ${this.graceMs / 1000} s); family revoked`);
      const next = await tx.refreshToken.findUnique({ where: { tokenHash: sha256Base64url(successor) } });
      if (!next || next.familyId !== row.familyId) return reused(row.familyId, "rotated refresh token has no derived successor (rotated before crash-safe rotation); family revoked");
      if (next.rotatedAt || next.revokedAt) return reused(row.familyId, "refresh token two or more generations old presented within the grace; family revoked");
      return { ok: true, grant: grantOf(row), token: successor, familyId: row.familyId };
    });
  }

  /** Retires every refresh token of the family; run inside the transaction that revokes the family. */
  async retireFamily(tx: DbOrTx, familyId: string): Promise<void> {
    await tx.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: this.clock.now() } });
  }

  /** The family of a refresh token of this client (RFC 7009 revokes it); null when unknown or not the client's. */
  async familyOf(token: string, clientId: string): Promise<string | null> {
    const row = await this.db.refreshToken.findUnique({ where: { tokenHash: sha256Base64url(token) } });
    return row && row.clientId === clientId ? row.familyId : null;
  }

  /** The successor of `token`: HMAC-SHA-256 under the successor key, 256 bits like a random token. */
  private successorOf(token: string): string {
    return hashSecret(this.settings.successorKey, token);
  }

  private async insert(tx: Tx, token: string, familyId: string, grant: RefreshGrant, now: Date): Promise<void> {
    await tx.refreshToken.create({
      data: { id: this.ids.uuid(), tokenHash: sha256Base64url(token), familyId, ...grant, factors: grant.factors ?? undefined, createdAt: now, expiresAt: new Date(now.getTime() + REFRESH_LIFETIME_S * 1000) },
    });
  }
}
