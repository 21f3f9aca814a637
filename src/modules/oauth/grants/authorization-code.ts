// grant_type=authorization_code (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3, RFC 7636 §4.6): the client
// redeems the single-use code from /oauth/authorize. The code must have been issued to this client
// (checked in the compare-and-set: another client's attempt does not use it up) and be presented
// with the PKCE verifier of its challenge and, when the authorization request carried one, the
// same redirect_uri (an omitted one may be omitted here too); a `resource` given here must be the
// one the code is bound to (RFC 8707 §2.2). A replayed code revokes the token family it started —
// its refresh tokens and its access tokens (OAuth 2.1 §4.1.3: "SHOULD revoke ... tokens previously
// issued").
import type { AuthorizationCodes, RefreshTokens } from "../../signin";
import { verifyPkce } from "../../signin";
import { canonicalResource } from "../../../shared/resource-url";
import type { AccessTokenIssuer } from "../../tokens";
import { parseScope } from "../../tokens";
import { oauthError } from "../errors";
import { multi, required, single } from "../params";
import type { TokenFamilies } from "../token-families";
import { issueUserToken } from "./user-token";
import type { GrantContext, GrantHandler, GrantResult } from "./types";

export interface AuthorizationCodeDeps {
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  families: TokenFamilies;
  issuer: AccessTokenIssuer;
}

export function authorizationCodeGrant(deps: AuthorizationCodeDeps): GrantHandler {
  return {
    grantType: "authorization_code",
    metadata: (base) => ({
      authorization_endpoint: `${base}/oauth/authorize`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    }),
    async handle({ params, client }: GrantContext): Promise<GrantResult> {
      const code = required(params, "code");
      const redirectUri = single(params, "redirect_uri");
      const verifier = required(params, "code_verifier");
      const resources = multi(params, "resource");
      if (resources.length > 1) throw oauthError("invalid_target", "more than one resource");

      const redeemed = await deps.codes.redeem(code, client.clientId, redirectUri !== undefined);
      if (!redeemed.ok) {
        if (redeemed.reused && redeemed.familyId) await deps.families.revoke(redeemed.familyId);
        throw oauthError("invalid_grant", redeemed.reused ? "authorization code replayed; its token family was revoked" : "authorization code unknown, expired, or issued to another client");
      }
      const g = redeemed.grant;
      if (redirectUri !== undefined && redirectUri !== g.redirectUri) throw oauthError("invalid_grant", "redirect_uri differs from the authorization request's");
      if (!verifyPkce(verifier, g.codeChallenge)) throw oauthError("invalid_grant", "code_verifier does not match the code_challenge (PKCE)");
      if (resources.length === 1 && canonicalResource(resources[0]!) !== canonicalResource(g.resource)) throw oauthError("invalid_target", "resource differs from the authorization request's");

      // Never more than the client may be granted now (its allowed scopes may have narrowed since consent).
      const scopes = parseScope(g.scope).filter((s) => client.allowedScopeSet.has(s));
      const tokens = await issueUserToken(deps.issuer, client, g, scopes, redeemed.familyId);
      if (!client.grantTypes.has("refresh_token")) return tokens;
      const refresh_token = await deps.refreshTokens.issue(redeemed.familyId, {
        tenantId: g.tenantId,
        clientId: client.clientId,
        userId: g.userId,
        scope: g.scope,
        resource: g.resource,
      });
      return { ...tokens, refresh_token };
    },
  };
}
