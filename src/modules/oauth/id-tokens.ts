// OpenID Connect ID tokens (OIDC Core §2, §3.1.3.6), minted beside the access token when the grant's
// scope holds `openid`: by the authorization_code grant (with the request's nonce) and by each
// refresh (OIDC Core §12.2: same iss, sub, aud, auth_time, azp; no nonce, a new iat). `sub` is the
// user's id, stable and private to the workspace's account; `aud` and `azp` the client_id; `amr`
// and `acr` say how the user signed in (signin/factors); `sid` names the browser session (RP-
// initiated logout); `at_hash` binds the access token (the left half of its SHA-256, base64url:
// ES256 and RS256 both hash with SHA-256). Signed with the client's id_token_signed_response_alg.
import { createHash } from "node:crypto";
import type { RegisteredClient } from "../clients";
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { IdTokenClaims, JwtService } from "../tokens";
import { acrOf, amrOf } from "../signin";

/** ID tokens are short-lived: the RP reads them at once (the access token's lifetime bounds the rest). */
export const ID_TOKEN_LIFETIME_S = 600;

/** The sign-in an ID token describes (from the code or the refresh token's row). */
export interface IdTokenSubject {
  userId: string;
  sessionId: string | null;
  authTime: Date | null;
  factors: string[] | null;
  nonce?: string | null;
}

export function atHash(accessToken: string): string {
  const digest = createHash("sha256").update(accessToken, "ascii").digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

export class IdTokens {
  constructor(
    private readonly jwt: JwtService,
    private readonly clock: Clock,
  ) {}

  /** Whether a grant's scope asks for an ID token. */
  static wanted(scopes: readonly string[]): boolean {
    return scopes.includes("openid");
  }

  async issue(client: RegisteredClient, subject: IdTokenSubject, accessToken: string): Promise<string> {
    const iat = epochSeconds(this.clock.now());
    const factors = subject.factors ?? [];
    const claims: IdTokenClaims = {
      sub: subject.userId,
      aud: client.clientId,
      azp: client.clientId,
      iat,
      exp: iat + ID_TOKEN_LIFETIME_S,
      auth_time: subject.authTime ? epochSeconds(subject.authTime) : iat,
      amr: amrOf(factors),
      acr: acrOf(factors),
      at_hash: atHash(accessToken),
    };
    if (subject.nonce) claims.nonce = subject.nonce;
    if (subject.sessionId) claims.sid = subject.sessionId;
    return this.jwt.signIdToken(claims, client.idTokenAlg);
  }
}
