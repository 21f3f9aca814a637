// Refresh tokens with rotation and reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): each use
// returns a new token of the same family and retires the old one; presenting a retired token means
// it was stolen or replayed, so the whole family is revoked. A family is also the `fid` claim of
// every access token minted from it: revoking a family must revoke those too, so the caller
// (oauth/token-families.ts) retires the refresh tokens with retireFamily() inside the transaction
// that records the family in the access-token denylist.
import type { Db, DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { sha256Base64url } from "../../shared/crypto";

export const REFRESH_LIFETIME_S = 30 * 24 * 3600;

export interface RefreshGrant {
  tenantId: string;
  clientId: string;
  userId: string;
  scope: string;
  resource: string;
}

export type RotateResult =
  | { ok: true; grant: RefreshGrant; token: string; familyId: string }
  | { ok: false; reuseDetected: false }
  /** A retired token was presented: the caller must revoke `familyId` (refresh and access tokens). */
  | { ok: false; reuseDetected: true; familyId: string };

export class RefreshTokens {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async issue(familyId: string, grant: RefreshGrant): Promise<string> {
    const token = this.ids.token(32);
    const now = this.clock.now();
    await this.db.refreshToken.create({
      data: { id: this.ids.uuid(), tokenHash: sha256Base64url(token), familyId, ...grant, createdAt: now, expiresAt: new Date(now.getTime() + REFRESH_LIFETIME_S * 1000) },
    });
    return token;
  }

  /** The grant behind a token of this client, without using it (null when unknown or not the client's). */
  async find(token: string, clientId: string): Promise<(RefreshGrant & { familyId: string }) | null> {
    const row = await this.db.refreshToken.findUnique({ where: { tokenHash: sha256Base64url(token) } });
    if (!row || row.clientId !== clientId) return null;
    return { tenantId: row.tenantId, clientId: row.clientId, userId: row.userId, scope: row.scope, resource: row.resource, familyId: row.familyId };
  }

  /** Exchanges `token` (which must belong to `clientId`) for its successor. */
  async rotate(token: string, clientId: string): Promise<RotateResult> {
    const now = this.clock.now();
    const row = await this.db.refreshToken.findUnique({ where: { tokenHash: sha256Base64url(token) } });
    if (!row || row.clientId !== clientId || row.revokedAt || row.expiresAt <= now) return { ok: false, reuseDetected: false };
    const won = await this.db.refreshToken.updateMany({ where: { id: row.id, rotatedAt: null, revokedAt: null }, data: { rotatedAt: now } });
    if (won.count !== 1) return { ok: false, reuseDetected: true, familyId: row.familyId };
    const grant: RefreshGrant = { tenantId: row.tenantId, clientId: row.clientId, userId: row.userId, scope: row.scope, resource: row.resource };
    return { ok: true, grant, token: await this.issue(row.familyId, grant), familyId: row.familyId };
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
}
