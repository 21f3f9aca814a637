// Authorization codes (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3): random, stored only as a hash,
// single use, 60 s lifetime, bound to client, redirect URI, PKCE challenge, resource and scope.
// Each code records the consent ticket that minted it (unique), so a consent page posted twice
// cannot mint a second code, in this instance or any other.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { sha256Base64url } from "../../shared/crypto";
import { isUniqueViolation } from "../../storage";

export const CODE_LIFETIME_S = 60;

export interface CodeGrant {
  tenantId: string;
  clientId: string;
  userId: string;
  /** The redirect URI the code was sent to (the registered one when the request omitted it). */
  redirectUri: string;
  /** Whether the authorization request carried redirect_uri: the token request must repeat it then (RFC 6749 §4.1.3). */
  redirectUriSent: boolean;
  codeChallenge: string;
  scope: string;
  resource: string;
}

export type RedeemResult = { ok: true; grant: CodeGrant; familyId: string } | { ok: false; reused: boolean; familyId?: string };

/**
 * The token family started by a code is derived from it, so a replayed code can revoke it. Hashed
 * again so the `fid` claim of the access tokens is opaque (it is not the code row's key).
 */
export const familyIdForCode = (codeHash: string): string => sha256Base64url(`family:${codeHash}`);

export class AuthorizationCodes {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** A new code for `grant`, or null when the consent `consentId` has already minted one. */
  async issue(grant: CodeGrant, consentId: string): Promise<string | null> {
    const code = this.ids.token(32);
    const now = this.clock.now();
    try {
      await this.db.authorizationCode.create({
        data: { codeHash: sha256Base64url(code), ...grant, consentId, createdAt: now, expiresAt: new Date(now.getTime() + CODE_LIFETIME_S * 1000) },
      });
    } catch (e) {
      if (isUniqueViolation(e)) return null;
      throw e;
    }
    return code;
  }

  /**
   * Marks the code used with a compare-and-set, so two concurrent redemptions cannot both win. The
   * client is part of the compare: a code presented by another client fails without being used
   * (and without counting as a replay), so the rightful client can still redeem it. So is the
   * redirect URI's presence: a token request without redirect_uri matches only a code whose
   * authorization request omitted it too (RFC 6749 §4.1.3); the caller compares a present one.
   */
  async redeem(code: string, clientId: string, redirectUriPresented: boolean): Promise<RedeemResult> {
    const codeHash = sha256Base64url(code);
    const now = this.clock.now();
    const won = await this.db.authorizationCode.updateMany({
      where: { codeHash, clientId, usedAt: null, expiresAt: { gt: now }, ...(redirectUriPresented ? {} : { redirectUriSent: false }) },
      data: { usedAt: now },
    });
    const row = await this.db.authorizationCode.findUnique({ where: { codeHash } });
    if (!row || row.clientId !== clientId) return { ok: false, reused: false };
    if (won.count === 1) {
      const { tenantId, userId, redirectUri, redirectUriSent, codeChallenge, scope, resource } = row;
      return { ok: true, grant: { tenantId, clientId, userId, redirectUri, redirectUriSent, codeChallenge, scope, resource }, familyId: familyIdForCode(codeHash) };
    }
    return { ok: false, reused: row.usedAt !== null, familyId: familyIdForCode(codeHash) };
  }
}
