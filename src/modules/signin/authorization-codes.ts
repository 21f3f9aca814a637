// Authorization codes (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3): random, stored only as a hash,
// single use, 60 s lifetime, bound to client, redirect URI, PKCE challenge, resource and scope.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { sha256Base64url } from "../../shared/crypto";

export const CODE_LIFETIME_S = 60;

export interface CodeGrant {
  tenantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
}

export type RedeemResult = { ok: true; grant: CodeGrant; familyId: string } | { ok: false; reused: boolean; familyId?: string };

/** The refresh-token family started by a code is derived from it, so a replayed code can revoke it. */
export const familyIdForCode = (codeHash: string): string => `code:${codeHash}`;

export class AuthorizationCodes {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async issue(grant: CodeGrant): Promise<string> {
    const code = this.ids.token(32);
    const now = this.clock.now();
    await this.db.authorizationCode.create({
      data: { codeHash: sha256Base64url(code), ...grant, createdAt: now, expiresAt: new Date(now.getTime() + CODE_LIFETIME_S * 1000) },
    });
    return code;
  }

  /** Marks the code used with a compare-and-set, so two concurrent redemptions cannot both win. */
  async redeem(code: string): Promise<RedeemResult> {
    const codeHash = sha256Base64url(code);
    const now = this.clock.now();
    const won = await this.db.authorizationCode.updateMany({ where: { codeHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    const row = await this.db.authorizationCode.findUnique({ where: { codeHash } });
    if (won.count === 1 && row) {
      const { tenantId, clientId, userId, redirectUri, codeChallenge, scope, resource } = row;
      return { ok: true, grant: { tenantId, clientId, userId, redirectUri, codeChallenge, scope, resource }, familyId: familyIdForCode(codeHash) };
    }
    return { ok: false, reused: Boolean(row?.usedAt), familyId: row ? familyIdForCode(codeHash) : undefined };
  }
}
