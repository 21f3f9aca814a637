// The UserInfo endpoint (OIDC Core §5.3) at GET and POST /userinfo (and /oauth2/userinfo): the
// signed-in user's claims, by the scopes their access token holds (`openid` required; `profile`:
// preferred_username and updated_at; `email`: email and email_verified). The bearer token is one of
// our user access tokens (RFC 9068), checked as introspection checks it: signature and expiry,
// revocation (its jti and its family), and the user still able to hold anything in the workspace
// (a suspended user or a departed member gets invalid_token). Errors are RFC 6750 §3.1 challenges.
// email_verified is false: Toolgate does not verify that a person owns their address
// (docs/decisions/0035-openid-provider.md).
import { epochSeconds } from "../../shared/clock";
import type { ResourceServerRegistry } from "../resource-servers";
import { parseScope, type AccessTokenVerifier, type RevocationList } from "../tokens";

export interface UserClaimsSource {
  /** The user's stored profile, null when the account is gone. */
  user(tenantId: string, userId: string): Promise<{ email: string; username: string; updatedAt: Date } | null>;
  /** What the user may hold on the server now (null: nothing in the workspace any more). */
  userScopes(tenantId: string, resourceServerId: string, userId: string): Promise<ReadonlySet<string> | null>;
}

export type UserInfoAnswer =
  | { status: 200; body: Record<string, unknown> }
  | { status: 400 | 401 | 403; body: { error?: string; error_description?: string }; challenge: string };

const REALM = 'Bearer realm="toolgate"';

function refused(status: 400 | 401 | 403, error: string, description: string, extra = ""): UserInfoAnswer {
  return { status, body: { error, error_description: description }, challenge: `${REALM}, error="${error}", error_description="${description}"${extra}` };
}

export class UserInfoEndpoint {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationList,
    private readonly servers: ResourceServerRegistry,
    private readonly source: UserClaimsSource,
  ) {}

  /** `tokens`: every place a token was sent (header, form body; RFC 6750 §2 allows exactly one), or "malformed". */
  async answer(tokens: string[] | "malformed"): Promise<UserInfoAnswer> {
    if (tokens === "malformed") return refused(400, "invalid_request", "the Authorization header or access_token parameter is malformed");
    // RFC 6750 §3.1: no credentials at all: a challenge without an error code.
    if (tokens.length === 0) return { status: 401, body: {}, challenge: REALM };
    if (tokens.length > 1) return refused(400, "invalid_request", "the access token was sent more than once");
    const claims = await this.verifier.verify(tokens[0]!);
    if (!claims || claims.sub_type !== "user") return refused(401, "invalid_token", "the access token is invalid or expired");
    if (this.revocations.isRevoked(claims.jti) || (claims.fid !== undefined && this.revocations.isFamilyRevoked(claims.fid))) {
      return refused(401, "invalid_token", "the access token is invalid or expired");
    }
    const scopes = parseScope(claims.scope);
    if (!scopes.includes("openid")) return refused(403, "insufficient_scope", "the access token was not issued with scope openid", ', scope="openid"');
    const server = await this.servers.findByResource(claims.tenant_id, claims.aud);
    const held = server ? await this.source.userScopes(claims.tenant_id, server.id, claims.sub) : null;
    const user = held ? await this.source.user(claims.tenant_id, claims.sub) : null;
    if (!user) return refused(401, "invalid_token", "the access token is invalid or expired");
    const body: Record<string, unknown> = { sub: claims.sub };
    if (scopes.includes("profile")) Object.assign(body, { preferred_username: user.username, updated_at: epochSeconds(user.updatedAt) });
    if (scopes.includes("email")) Object.assign(body, { email: user.email, email_verified: false });
    return { status: 200, body };
  }
}
