// The access token of a signed-in user, as both user grants (authorization_code, refresh_token)
// mint it: subject the user, audience the grant's resource, lifetime the client's, and the family
// id that lets a revoked refresh chain take its access tokens with it.
import type { RegisteredClient } from "../../clients";
import type { AccessTokenIssuer, TokenResponse } from "../../tokens";

export interface UserGrant {
  tenantId: string;
  userId: string;
  resource: string;
}

export function issueUserToken(
  issuer: AccessTokenIssuer,
  client: RegisteredClient,
  grant: UserGrant,
  scopes: readonly string[],
  familyId: string,
): Promise<TokenResponse> {
  return issuer.issue({
    subject: grant.userId,
    subjectType: "user",
    clientId: client.clientId,
    tenantId: grant.tenantId,
    audience: grant.resource,
    scopes,
    lifetimeSeconds: client.tokenLifetime,
    familyId,
  });
}
