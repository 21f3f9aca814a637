// Signing and verifying our JWTs with jose. Two audiences never mix: access tokens (RFC 9068,
// typ at+jwt, aud = a resource server's resource_url) and admin session tokens (typ JWT,
// aud ADMIN_AUDIENCE). Verification pins the algorithm and the typ header.
import { sign as signWithKey, type KeyObject } from "node:crypto";
import { jwtVerify, decodeProtectedHeader, errors as joseErrors, type JWTPayload } from "jose";
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
  /** The user's credential version when the token was issued (absent in tokens from before it existed: 0). */
  cv?: number;
  exp: number;
}

export class JwtService {
  constructor(
    private readonly keys: KeyStore,
    private readonly issuer: string,
    private readonly clock: Clock,
  ) {}

  /** Encoded protected headers by kid and typ: the same few strings for every token. */
  private readonly headers = new Map<string, string>();

  /**
   * RFC 7515 compact JWS, ES256 (RFC 7518 §3.4: the signature is R || S, "ieee-p1363"), signed with
   * node:crypto's sign in its callback form, which runs the ECDSA signature on libuv's thread pool
   * while the event loop serves other requests. jose's SignJWT signs through WebCrypto, whose job
   * measured ~130 µs of CPU per token here; node:crypto's synchronous sign ~30 µs (Node 20) or
   * ~45 µs (Node 24, OpenSSL 3.5) on the event loop; the callback form, under load, doubled the token
   * endpoint's throughput on both and lowered its CPU per request (docs/benchmarks.md, Round 4).
   * Verification stays jose's (jwtVerify). The output is what SignJWT produced: header
   * {"alg","typ","kid"} and the payload as given, base64url, dot-separated.
   */
  private async sign(payload: JWTPayload, typ: string): Promise<string> {
    const { kid, key } = this.keys.signingKeyObject();
    const headerKey = `${kid} ${typ}`;
    let header = this.headers.get(headerKey);
    if (header === undefined) {
      header = Buffer.from(JSON.stringify({ alg: SIGNING_ALG, typ, kid })).toString("base64url");
      if (this.headers.size > 64) this.headers.clear(); // kids rotate rarely; never grows without bound
      this.headers.set(headerKey, header);
    }
    const input = `${header}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
    return `${input}.${(await es256(Buffer.from(input), key)).toString("base64url")}`;
  }

  async signAccessToken(claims: Omit<AccessTokenClaims, "iss">): Promise<string> {
    return this.sign({ iss: this.issuer, ...claims }, ACCESS_TOKEN_TYP);
  }

  async signAdminToken(userId: string, tenantId: string, credentialVersion: number): Promise<{ token: string; expiresIn: number }> {
    const iat = epochSeconds(this.clock.now());
    const token = await this.sign(
      { iss: this.issuer, aud: ADMIN_AUDIENCE, sub: userId, tenant_id: tenantId, workspace_id: tenantId, cv: credentialVersion, iat, exp: iat + ADMIN_TOKEN_LIFETIME_S },
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

/** ES256 over `data` on libuv's thread pool (node:crypto's callback form). */
function es256(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => signWithKey("sha256", data, { key, dsaEncoding: "ieee-p1363" }, (e, signature) => (e ? reject(e) : resolve(signature))));
}
