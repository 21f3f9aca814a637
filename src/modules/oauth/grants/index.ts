// Every grant the token endpoint serves, in the order metadata lists them. To add a grant:
// write grants/<grant>.ts implementing GrantHandler, add its dependencies to GrantDeps, and
// add it below. Nothing else changes: dispatch and discovery follow this list.
import type { AuthorizationCodes, RefreshTokens } from "../../signin";
import type { TokenFamilies } from "../token-families";
import { authorizationCodeGrant } from "./authorization-code";
import { clientCredentialsGrant, type ClientCredentialsDeps } from "./client-credentials";
import { refreshTokenGrant, type RefreshTokenDeps } from "./refresh-token";
import type { GrantHandler } from "./types";
import type { ConnectionGate } from "../connection-gate";
import type { IdTokens } from "../id-tokens";

/** End-user sign-in state (authorization_code, refresh_token). */
export interface SignInGrantDeps {
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  userScopes: RefreshTokenDeps["userScopes"];
}

export interface GrantDeps extends ClientCredentialsDeps {
  signin: SignInGrantDeps;
  /** dcr/cimd clients: connection approved and registration mode accepted (connection-gate.ts). */
  connections: ConnectionGate;
  /** Revokes a refresh-token chain with its access tokens. */
  families: TokenFamilies;
  /** OpenID Connect ID tokens (scope openid). */
  idTokens: IdTokens;
}

export function createGrants(deps: GrantDeps): GrantHandler[] {
  const { codes, refreshTokens, userScopes } = deps.signin;
  const { families, issuer, servers, connections, idTokens } = deps;
  return [
    clientCredentialsGrant(deps),
    authorizationCodeGrant({ codes, refreshTokens, families, issuer, connections, idTokens }),
    refreshTokenGrant({ refreshTokens, families, issuer, servers, userScopes, connections, idTokens }),
  ];
}

export type { GrantHandler, GrantContext, GrantResult } from "./types";
export { clientCredentialsGrant } from "./client-credentials";
