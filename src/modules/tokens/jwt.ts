// Signing and verifying our JWTs with jose. Two audiences never mix: access tokens (RFC 9068,
// typ at+jwt, aud = a resource server's resource_url) and admin session tokens (typ JWT,
// aud ADMIN_AUDIENCE). Verification pins the algorithm and the typ header.
import { sign as signWithKey, type KeyObject } from "node:crypto";
import { compactVerify, jwtVerify, decodeProtectedHeader, errors as joseErrors, type JWTPayload } from "jose";
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { KeyStore } from "./key-store";
import { SIGNING_ALG, SIGNING_ALGS, type SigningAlg } from "./key-store";

export const ACCESS_TOKEN_TYP = "at+jwt";
export const ADMIN_TOKEN_TYP = "JWT";
export const ADMIN_AUDIENCE = "urn:toolgate:admin";
export const ADMIN_TOKEN_LIFETIME_S = 3600;
export const ID_TOKEN_TYP = "JWT";

/** OIDC Core §2 ID token claims (iss is added when signing). */
export interface IdTokenClaims {
  iss?: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  auth_time: number;
  azp: string;
  nonce?: string;
  at_hash?: string;
  amr: string[];
  acr: string;
  /** The browser session (OpenID RP-Initiated Logout: id_token_hint names the session to end). */
  sid?: string;
}

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
  /** How the admin signed in (RFC 8176; absent in tokens from before it existed). */
  amr?: string[];
  /** Set when the token may only enrol a second factor (docs/operations.md "Second factors"). */
  mfa_enrol_only?: boolean;
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
  private async sign(payload: JWTPayload, typ: string, alg: SigningAlg = SIGNING_ALG): Promise<string> {
    const { kid, key } = this.keys.signingKeyObject(alg);
    const headerKey = `${kid} ${typ}`;
    let header = this.headers.get(headerKey);
    if (header === undefined) {
      header = Buffer.from(JSON.stringify({ alg, typ, kid })).toString("base64url");
      if (this.headers.size > 64) this.headers.clear(); // kids rotate rarely; never grows without bound
      this.headers.set(headerKey, header);
    }
    const input = `${header}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
    return `${input}.${(await signJws(Buffer.from(input), key)).toString("base64url")}`;
  }

  /**
   * An OpenID Connect ID token (OIDC Core §2), signed with the client's registered algorithm
   * (ES256 or RS256, both SHA-256: the at_hash of either is the left half of a SHA-256).
   * typ "JWT": it never verifies as an access token (at+jwt) and its audience is a client, never
   * the admin audience.
   */
  async signIdToken(claims: IdTokenClaims, alg: SigningAlg): Promise<string> {
    return this.sign({ iss: this.issuer, ...claims }, ID_TOKEN_TYP, alg);
  }

  /**
   * A client assertion for private_key_jwt at an upstream provider's token endpoint (RFC 7523 §3,
   * OIDC Core §9): iss = sub = our client_id there, aud = its token endpoint, a minute's life and a
   * fresh jti; ES256 with the key our JWKS publishes (where the provider fetches it).
   */
  async signClientAssertion(clientId: string, audience: string, jti: string): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return this.sign({ iss: clientId, sub: clientId, aud: audience, jti, iat: now, exp: now + 60 }, "JWT", "ES256");
  }

  /**
   * The claims of an ID token this server issued (signature by a published key, issuer), expired
   * or not: an RP-initiated logout's id_token_hint may have outlived its exp (OpenID RP-Initiated
   * Logout §2). Null for anything else (an access or admin token included).
   */
  async readIdTokenHint(token: string): Promise<IdTokenClaims | null> {
    let header: { kid?: string; alg?: string; typ?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return null;
    }
    if (header.typ !== ID_TOKEN_TYP || !SIGNING_ALGS.includes(header.alg as SigningAlg)) return null;
    const key = this.keys.verificationKey(header.kid, header.alg as SigningAlg);
    if (!key) return null;
    try {
      const { payload } = await compactVerify(token, key, { algorithms: [header.alg!] });
      const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      if (claims.iss !== this.issuer || typeof claims.sub !== "string" || typeof claims.aud !== "string" || claims.aud === ADMIN_AUDIENCE) return null;
      if (typeof claims.azp !== "string") return null; // every ID token of ours names its client
      return claims as unknown as IdTokenClaims;
    } catch (e) {
      if (e instanceof joseErrors.JOSEError || e instanceof SyntaxError) return null;
      throw e;
    }
  }

  async signAccessToken(claims: Omit<AccessTokenClaims, "iss">): Promise<string> {
    return this.sign({ iss: this.issuer, ...claims }, ACCESS_TOKEN_TYP);
  }

  /** `amr`: how the admin signed in (RFC 8176 values, e.g. ["mfa","otp","pwd"]). */
  /** `enrolOnly`: the token may only enrol a second factor (the workspace requires one and the admin has none). */
  async signAdminToken(userId: string, tenantId: string, credentialVersion: number, amr: readonly string[], enrolOnly = false): Promise<{ token: string; expiresIn: number }> {
    const iat = epochSeconds(this.clock.now());
    const token = await this.sign(
      {
        iss: this.issuer,
        aud: ADMIN_AUDIENCE,
        sub: userId,
        tenant_id: tenantId,
        workspace_id: tenantId,
        cv: credentialVersion,
        amr: [...amr],
        ...(enrolOnly ? { mfa_enrol_only: true } : {}),
        iat,
        exp: iat + ADMIN_TOKEN_LIFETIME_S,
      },
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

/**
 * ES256 or RS256 over `data` on libuv's thread pool (node:crypto's callback form): SHA-256 with
 * the key's own scheme (ECDSA as R || S, RFC 7518 §3.4; RSASSA-PKCS1-v1_5 for an RSA key, §3.3).
 */
function signJws(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => signWithKey("sha256", data, { key, dsaEncoding: "ieee-p1363" }, (e, signature) => (e ? reject(e) : resolve(signature))));
}
