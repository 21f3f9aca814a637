// grant_type=authorization_code (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3, RFC 7636 §4.6): the client
// redeems the single-use code from /oauth/authorize. The code must have been issued to this client
// and be presented with the same redirect_uri and the PKCE verifier of its challenge; a `resource`
// given here must be the one the code is bound to (RFC 8707 §2.2). A replayed code revokes the
// refresh-token chain it started (OAuth 2.1 §4.1.3: "SHOULD revoke ... tokens previously issued").
import type { AuthorizationCodes, RefreshTokens } from "../../signin";
import { verifyPkce } from "../../signin";
import { canonicalResource } from "../../resource-servers";
import type { AccessTokenIssuer } from "../../tokens";
import { oauthError } from "../errors";
import { multi, required } from "../params";
import type { GrantContext, GrantHandler, GrantResult } from "./types";

export interface AuthorizationCodeDeps {
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
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
      const redirectUri = required(params, "redirect_uri");
      const verifier = required(params, "code_verifier");
      const resources = multi(params, "resource");
      if (resources.length > 1) throw oauthError("invalid_target");

      const redeemed = await deps.codes.redeem(code);
      if (!redeemed.ok) {
        if (redeemed.reused && redeemed.familyId) await deps.refreshTokens.revokeFamily(redeemed.familyId);
        throw oauthError("invalid_grant");
      }
      const g = redeemed.grant;
      if (g.clientId !== client.clientId || g.redirectUri !== redirectUri || !verifyPkce(verifier, g.codeChallenge)) {
        throw oauthError("invalid_grant");
      }
      if (resources.length === 1 && canonicalResource(resources[0]!) !== canonicalResource(g.resource)) throw oauthError("invalid_target");

      const scopes = g.scope ? g.scope.split(" ") : [];
      const tokens = await deps.issuer.issue({
        subject: g.userId,
        subjectType: "user",
        clientId: client.clientId,
        tenantId: g.tenantId,
        audience: g.resource,
        scopes,
        lifetimeSeconds: client.tokenLifetime,
      });
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

