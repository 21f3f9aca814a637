// grant_type=authorization_code (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3, RFC 7636 §4.6): the client
// redeems the single-use code from /oauth/authorize. The code must have been issued to this client
// (checked in the compare-and-set: another client's attempt does not use it up) and be presented
// with the PKCE verifier of its challenge and, when the authorization request carried one, the
// same redirect_uri (an omitted one may be omitted here too); a `resource` given here must be the
// one the code is bound to (RFC 8707 §2.2). A replayed code revokes the token family it started —
// its refresh tokens and its access tokens (OAuth 2.1 §4.1.3: "SHOULD revoke ... tokens previously
// issued").
import type { AuthorizationCodes, RefreshTokens } from "../../signin";
import { oidcScopesOf, verifyPkce } from "../../signin";
import { IdTokens } from "../id-tokens";
import { canonicalResource } from "../../../shared/resource-url";
import type { AccessTokenIssuer } from "../../tokens";
import { parseScope } from "../../tokens";
import { oauthError } from "../errors";
import { multi, required, single } from "../params";
import type { TokenFamilies } from "../token-families";
import type { ConnectionGate } from "../connection-gate";
import { issueUserToken } from "./user-token";
import type { GrantContext, GrantHandler, GrantResult } from "./types";

export interface AuthorizationCodeDeps {
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  families: TokenFamilies;
  issuer: AccessTokenIssuer;
  connections: ConnectionGate;
  idTokens: IdTokens;
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
      // A dcr/cimd client: its connection to the code's server must still be approved and its mode
      // still accepted there. Checked before the code is used: a refused client keeps being refused.
      const pending = await deps.codes.peek(code, client.clientId);
      if (pending) {
        const refusal = await deps.connections.refusal(client, pending.tenantId, pending.resource);
        if (refusal) throw refusal;
      }

      // One transaction marks the code used, runs these checks and stores the family's first refresh
      // token (signin/authorization-codes.ts), so a crash cannot leave a used code without its chain.
      // A request the checks refuse still uses the code up, as before.
      const redeemed = await deps.codes.redeem(code, client.clientId, {
        redirectUriPresented: redirectUri !== undefined,
        startChain: client.grantTypes.has("refresh_token")
          ? (tx, familyId, g) =>
              deps.refreshTokens.issueIn(tx, familyId, {
                tenantId: g.tenantId,
                clientId: g.clientId,
                userId: g.userId,
                scope: g.scope,
                resource: g.resource,
                sessionId: g.sessionId,
                authTime: g.authTime,
                factors: g.factors,
              })
          : undefined,
        check: (g) => {
          if (redirectUri !== undefined && redirectUri !== g.redirectUri) return oauthError("invalid_grant", "redirect_uri differs from the authorization request's");
          if (!verifyPkce(verifier, g.codeChallenge)) return oauthError("invalid_grant", "code_verifier does not match the code_challenge (PKCE)");
          if (resources.length === 1 && canonicalResource(resources[0]!) !== canonicalResource(g.resource)) return oauthError("invalid_target", "resource differs from the authorization request's");
          return undefined;
        },
      });
      if (!redeemed.ok) {
        if (redeemed.kind === "refused") throw redeemed.refusal;
        if (redeemed.kind === "replayed") {
          await deps.families.revoke(redeemed.familyId);
          throw oauthError("invalid_grant", "authorization code replayed; its token family was revoked");
        }
        throw oauthError("invalid_grant", "authorization code unknown, expired, or issued to another client");
      }
      const g = redeemed.grant;
      // Never more than the client may be granted now (its allowed scopes may have narrowed since
      // consent); OpenID Connect's own scopes are the user's to give, not a server's.
      const granted = parseScope(g.scope);
      const oidc = oidcScopesOf(granted);
      const scopes = granted.filter((s) => client.allowedScopeSet.has(s) || oidc.has(s));
      const tokens = await issueUserToken(deps.issuer, client, g, scopes, redeemed.familyId);
      const withRefresh = redeemed.refreshToken === undefined ? tokens : { ...tokens, refresh_token: redeemed.refreshToken };
      if (!IdTokens.wanted(scopes)) return withRefresh;
      return { ...withRefresh, id_token: await deps.idTokens.issue(client, g, tokens.access_token) };
    },
  };
}
