// Authorization codes (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3): random, stored only as a hash,
// single use, 60 s lifetime, bound to client, redirect URI, PKCE challenge, resource and scope.
// Each code records the consent ticket that minted it (unique), so a consent page posted twice
// cannot mint a second code, in this instance or any other.
import type { Db, Tx } from "../../storage";
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
  /** OpenID Connect: the request's nonce, and the sign-in behind the code (session, time, factor ids). */
  nonce: string | null;
  sessionId: string | null;
  authTime: Date | null;
  factors: string[] | null;
}

export interface RedeemOptions<E> {
  /** Whether the token request carried redirect_uri: a code whose authorization request carried it needs it (RFC 6749 §4.1.3). */
  redirectUriPresented: boolean;
  /**
   * The caller's checks of the request against the code (redirect URI, PKCE verifier, resource): its
   * refusal, or undefined. They run once the code is marked used, so a refused request uses it up.
   */
  check(grant: CodeGrant): E | undefined;
  /** Runs in the same transaction once the checks pass: starts the family's refresh-token chain and returns its first token. */
  startChain?(tx: Tx, familyId: string, grant: CodeGrant): Promise<string>;
}

export type RedeemResult<E> =
  | { ok: true; grant: CodeGrant; familyId: string; refreshToken: string | undefined }
  /** Unknown, expired, another client's, or redirect_uri missing where required: nothing was used up. */
  | { ok: false; kind: "unknown" }
  /** Already redeemed: the caller revokes `familyId` (OAuth 2.1 §4.1.3). */
  | { ok: false; kind: "replayed"; familyId: string }
  /** Used up by a request `check` refused. */
  | { ok: false; kind: "refused"; refusal: E };

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
        data: { codeHash: sha256Base64url(code), ...grant, factors: grant.factors ?? undefined, consentId, createdAt: now, expiresAt: new Date(now.getTime() + CODE_LIFETIME_S * 1000) },
      });
    } catch (e) {
      if (isUniqueViolation(e)) return null;
      throw e;
    }
    return code;
  }

  /** Which workspace and resource an unused, unexpired code of this client is bound to (null otherwise); reads only. */
  async peek(code: string, clientId: string): Promise<{ tenantId: string; resource: string } | null> {
    const row = await this.db.authorizationCode.findUnique({ where: { codeHash: sha256Base64url(code) }, select: { clientId: true, tenantId: true, resource: true, usedAt: true, expiresAt: true } });
    if (!row || row.clientId !== clientId || row.usedAt !== null || row.expiresAt <= this.clock.now()) return null;
    return { tenantId: row.tenantId, resource: row.resource };
  }

  /**
   * Redeems the code in ONE transaction (docs/sign-in.md "Crash-safe rotation"): marks it used
   * with a compare-and-set, so two concurrent redemptions cannot both win, then runs the caller's
   * `check` and `startChain` (the family's first refresh token), so a crash leaves either an unused
   * code or a used code with its chain. The client is part of the compare: a code presented by
   * another client fails without being used (and without counting as a replay), so the rightful
   * client can still redeem it. So is the redirect URI's presence: a token request without
   * redirect_uri matches only a code whose authorization request omitted it too (RFC 6749 §4.1.3);
   * `check` compares a present one.
   */
  async redeem<E>(code: string, clientId: string, opts: RedeemOptions<E>): Promise<RedeemResult<E>> {
    const codeHash = sha256Base64url(code);
    const familyId = familyIdForCode(codeHash);
    const now = this.clock.now();
    return this.db.$transaction(async (tx): Promise<RedeemResult<E>> => {
      const won = await tx.authorizationCode.updateMany({
        where: { codeHash, clientId, usedAt: null, expiresAt: { gt: now }, ...(opts.redirectUriPresented ? {} : { redirectUriSent: false }) },
        data: { usedAt: now },
      });
      const row = await tx.authorizationCode.findUnique({ where: { codeHash } });
      if (!row || row.clientId !== clientId) return { ok: false, kind: "unknown" };
      if (won.count !== 1) return row.usedAt !== null ? { ok: false, kind: "replayed", familyId } : { ok: false, kind: "unknown" };
      const { tenantId, userId, redirectUri, redirectUriSent, codeChallenge, scope, resource, nonce, sessionId, authTime } = row;
      const grant: CodeGrant = { tenantId, clientId, userId, redirectUri, redirectUriSent, codeChallenge, scope, resource, nonce, sessionId, authTime, factors: (row.factors as string[] | null) ?? null };
      const refusal = opts.check(grant);
      if (refusal !== undefined) return { ok: false, kind: "refused", refusal };
      const refreshToken = await opts.startChain?.(tx, familyId, grant);
      return { ok: true, grant, familyId, refreshToken };
    });
  }
}
