// Every grant the token endpoint serves, in the order metadata lists them. To add a grant:
// write grants/<grant>.ts implementing GrantHandler, add its dependencies to GrantDeps, and
// add it below. Nothing else changes: dispatch and discovery follow this list, so a grant whose
// dependencies are not wired is neither served nor advertised.
import type { AuthorizationCodes, RefreshTokens } from "../../signin";
import type { TokenFamilies } from "../token-families";
import { authorizationCodeGrant } from "./authorization-code";
import { clientCredentialsGrant, type ClientCredentialsDeps } from "./client-credentials";
import { refreshTokenGrant, type RefreshTokenDeps } from "./refresh-token";
import type { GrantHandler } from "./types";

/** End-user sign-in state: present once the sign-in module is wired (authorization_code, refresh_token). */
export interface SignInGrantDeps {
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  userScopes: RefreshTokenDeps["userScopes"];
}

export interface GrantDeps extends ClientCredentialsDeps {
  signin?: SignInGrantDeps;
  /** Revokes a refresh-token chain with its access tokens (present whenever `signin` is). */
  families?: TokenFamilies;
}

export function createGrants(deps: GrantDeps): GrantHandler[] {
  const grants: GrantHandler[] = [clientCredentialsGrant(deps)];
  if (deps.signin) {
    if (!deps.families) throw new Error("the sign-in grants need token families (revocation of refresh-token chains)");
    const { codes, refreshTokens, userScopes } = deps.signin;
    const { families } = deps;
    grants.push(
      authorizationCodeGrant({ codes, refreshTokens, families, issuer: deps.issuer }),
      refreshTokenGrant({ refreshTokens, families, issuer: deps.issuer, servers: deps.servers, userScopes }),
    );
  }
  return grants;
}

export type { GrantHandler, GrantContext, GrantResult } from "./types";
export { clientCredentialsGrant } from "./client-credentials";
