// Signing and verifying our JWTs with jose. Two audiences never mix: access tokens (RFC 9068,
// typ at+jwt, aud = a resource server's resource_url) and admin session tokens (typ JWT,
// aud ADMIN_AUDIENCE). Verification pins the algorithm and the typ header.
import { SignJWT, jwtVerify, decodeProtectedHeader, errors as joseErrors, type JWTPayload } from "jose";
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { KeyStore } from "./key-store";
import { SIGNING_ALG } from "./key-store";

export const ACCESS_TOKEN_TYP = "at+jwt";
export const ADMIN_TOKEN_TYP = "JWT";
export const ADMIN_AUDIENCE = "urn:toolgate:admin";
export const ADMIN_TOKEN_LIFETIME_S = 3600;

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  tenant_id: string;
  /** "client" for client-credentials tokens, "user" for tokens issued to a signed-in user. */
  sub_type?: "client" | "user";
  /**
   * User tokens: the token family (the refresh-token chain started by one authorization code).
   * Revoking the family (reuse detection, RFC 7009 revocation of a refresh token, a replayed
   * code) makes every access token carrying it inactive.
   */
  fid?: string;
}

export interface AdminTokenClaims {
  sub: string;
  tenant_id?: string;
  workspace_id?: string;
  exp: number;
}

export class JwtService {
  constructor(
    private readonly keys: KeyStore,
    private readonly issuer: string,
    private readonly clock: Clock,
  ) {}

  private async sign(payload: JWTPayload, typ: string): Promise<string> {
    const { kid, key } = this.keys.signingKey();
    return new SignJWT(payload).setProtectedHeader({ alg: SIGNING_ALG, typ, kid }).sign(key);
  }

  async signAccessToken(claims: Omit<AccessTokenClaims, "iss">): Promise<string> {
    return this.sign({ iss: this.issuer, ...claims }, ACCESS_TOKEN_TYP);
  }

  async signAdminToken(userId: string, tenantId: string): Promise<{ token: string; expiresIn: number }> {
    const iat = epochSeconds(this.clock.now());
    const token = await this.sign(
      { iss: this.issuer, aud: ADMIN_AUDIENCE, sub: userId, tenant_id: tenantId, workspace_id: tenantId, iat, exp: iat + ADMIN_TOKEN_LIFETIME_S },
      ADMIN_TOKEN_TYP,
    );
    return { token, expiresIn: ADMIN_TOKEN_LIFETIME_S };
  }

  /** Verifies signature (published keys only), alg, typ, issuer, expiry and, when given, the audience. */
  private async verify(token: string, typ: string, audience?: string): Promise<JWTPayload | null> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return null;
    }
    const key = this.keys.verificationKey(kid);
    if (!key) return null;
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: this.issuer,
        audience,
        algorithms: [SIGNING_ALG],
        typ,
        currentDate: this.clock.now(),
        requiredClaims: ["exp", "iat", "sub", "aud"],
      });
      return payload;
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return null;
      throw e;
    }
  }

  async verifyAccessToken(token: string): Promise<AccessTokenClaims | null> {
    const p = await this.verify(token, ACCESS_TOKEN_TYP);
    if (!p || typeof p.aud !== "string" || typeof p.jti !== "string" || typeof p.client_id !== "string") return null;
    return p as unknown as AccessTokenClaims;
  }

  async verifyAdminToken(token: string): Promise<AdminTokenClaims | null> {
    const p = await this.verify(token, ADMIN_TOKEN_TYP, ADMIN_AUDIENCE);
    if (!p || typeof p.sub !== "string") return null;
    return p as unknown as AdminTokenClaims;
  }
}
