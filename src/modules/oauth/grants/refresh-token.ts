// grant_type=refresh_token (RFC 6749 §6, OAuth 2.1 §4.3): a new access token and a NEW refresh
// token (rotation, OAuth 2.1 §4.3.1); the presented token is retired, and presenting a retired
// token revokes the whole family — the chain and the access tokens minted from it (reuse
// detection, RFC 9700 §4.14.2) — except the retry of the immediately preceding token within the
// grace, which gets the same successor again (a lost answer; docs/sign-in.md). The scope cannot widen: a requested `scope` must be a subset of
// the original grant (RFC 6749 §6). The access token carries the granted scopes that the user
// still holds now (the one scope resolver) AND the client may still be granted now (its current
// allowed scopes), like the consent would today.
import { oidcScopesOf, type RefreshTokens } from "../../signin";
import { IdTokens } from "../id-tokens";
import { canonicalResource } from "../../../shared/resource-url";
import type { ResourceServerRegistry } from "../../resource-servers";
import type { AccessTokenIssuer } from "../../tokens";
import { parseScope } from "../../tokens";
import { oauthError } from "../errors";
import { multi, required, single } from "../params";
import type { TokenFamilies } from "../token-families";
import type { ConnectionGate } from "../connection-gate";
import { issueUserToken } from "./user-token";
import type { GrantContext, GrantHandler, GrantResult } from "./types";

export interface RefreshTokenDeps {
  refreshTokens: RefreshTokens;
  families: TokenFamilies;
  issuer: AccessTokenIssuer;
  servers: ResourceServerRegistry;
  connections: ConnectionGate;
  idTokens: IdTokens;
  /** Whether the user may hold anything now, and which scopes on the server (the one resolver). */
  userScopes(tenantId: string, resourceServerId: string, userId: string): Promise<ReadonlySet<string> | null>;
}

export function refreshTokenGrant(deps: RefreshTokenDeps): GrantHandler {
  return {
    grantType: "refresh_token",
    async handle({ params, client }: GrantContext): Promise<GrantResult> {
      const presented = required(params, "refresh_token");
      const resources = multi(params, "resource");
      if (resources.length > 1) throw oauthError("invalid_target", "more than one resource");
      const requested = single(params, "scope");

      // Validate the request against the grant before using the token, so a malformed request
      // does not burn the client's refresh token.
      const g = await deps.refreshTokens.find(presented, client.clientId);
      if (!g) throw oauthError("invalid_grant", "refresh token unknown, expired, revoked, or issued to another client");
      if (resources.length === 1 && canonicalResource(resources[0]!) !== canonicalResource(g.resource)) throw oauthError("invalid_target", "resource differs from the grant's");
      const granted = parseScope(g.scope);
      const scopes = requested === undefined ? granted : parseScope(requested);
      if (!scopes.every((s) => granted.includes(s))) throw oauthError("invalid_scope", "a requested scope exceeds the original grant");

      // The server must still be live and the user still active, as this instance sees them. Its
      // caches may not have caught up with another instance's change yet (a user reactivated, a
      // member added back), so a denial here refuses this request and nothing else: the token is
      // not rotated and the family is not revoked (docs/sign-in.md). The family's access tokens
      // already introspect inactive while the condition holds.
      const server = await deps.servers.findByResource(g.tenantId, g.resource);
      if (!server) throw oauthError("invalid_grant", "the grant's resource server is gone, as this instance sees it; nothing rotated or revoked");
      // A revoked connection (or a mode the server no longer accepts) refuses; nothing is rotated.
      const refusal = await deps.connections.refusal(client, g.tenantId, g.resource);
      if (refusal) throw refusal;
      const held = await deps.userScopes(g.tenantId, server.id, g.userId);
      if (!held) throw oauthError("invalid_grant", "the user may no longer hold anything in the workspace, as this instance sees it; nothing rotated or revoked");

      // One transaction (signin/refresh-tokens.ts): a first use rotates; a retry of the immediately
      // preceding token within the grace gets the same successor; any other rotated token is reuse.
      const rotated = await deps.refreshTokens.rotate(presented, client.clientId);
      if (!rotated.ok) {
        // A retired token presented again: stolen or replayed. Its whole family dies, access tokens included.
        if (rotated.reuseDetected) await deps.families.revoke(rotated.familyId);
        throw oauthError("invalid_grant", rotated.reason);
      }
      const oidc = oidcScopesOf(scopes);
      const allowedNow = scopes.filter((s) => (held.has(s) && client.allowedScopeSet.has(s)) || oidc.has(s));
      const tokens = await issueUserToken(deps.issuer, client, g, allowedNow, rotated.familyId);
      const answer = { ...tokens, refresh_token: rotated.token };
      // OIDC Core §12.2: a new ID token for the same sign-in (auth_time, amr and sid of the original).
      if (!IdTokens.wanted(allowedNow)) return answer;
      return { ...answer, id_token: await deps.idTokens.issue(client, g, tokens.access_token) };
    },
  };
}
