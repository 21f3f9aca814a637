// Mints access tokens (RFC 9068 JWT profile: typ at+jwt, aud = the resource server's resource_url)
// and builds the RFC 6749 §5.1 success body. Every grant ends here, so every token carries the
// same claims: iss sub aud exp iat jti client_id scope tenant_id (+ sub_type and fid for user tokens).
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import type { AccessTokenClaims, JwtService } from "./jwt";

export interface IssueRequest {
  /** client_id for machine tokens, the user id for user tokens. */
  subject: string;
  subjectType?: "client" | "user";
  clientId: string;
  tenantId: string;
  /** The resource server's resource_url (RFC 8707). */
  audience: string;
  scopes: readonly string[];
  lifetimeSeconds: number;
  /** The token family (user tokens from sign-in): revoking it deactivates the token (claim `fid`). */
  familyId?: string;
}

/** RFC 6749 §5.1, exactly these members (the spec's token response). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

export class AccessTokenIssuer {
  constructor(
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async issue(req: IssueRequest): Promise<TokenResponse> {
    const iat = epochSeconds(this.clock.now());
    const scope = req.scopes.join(" ");
    const claims: Omit<AccessTokenClaims, "iss"> = {
      sub: req.subject,
      aud: req.audience,
      exp: iat + req.lifetimeSeconds,
      iat,
      jti: this.ids.uuid(),
      client_id: req.clientId,
      scope,
      tenant_id: req.tenantId,
    };
    // Machine tokens carry no sub_type (absent = client); user tokens must say so explicitly.
    if (req.subjectType === "user") claims.sub_type = "user";
    if (req.familyId !== undefined) claims.fid = req.familyId;
    const access_token = await this.jwt.signAccessToken(claims);
    return { access_token, token_type: "Bearer", expires_in: req.lifetimeSeconds, scope };
  }
}
