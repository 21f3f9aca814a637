// grant_type=client_credentials (RFC 6749 §4.4): a confidential client asks for a token for
// itself. The token's audience is one resource server (RFC 8707 `resource`; default: the
// server the client is registered against) and its scope is a subset of the client's allowed
// scopes (omitted `scope` = all of them, RFC 6749 §3.3 "pre-defined default value").
// A workspace-wide client (an agent's credentials, docs/decisions/0040-agents.md) is bound to no
// server: `resource` names one of its workspace's live servers, and what it may ask for there is
// what the role bindings of its service account grant on that server (the same resolver
// introspection asks).
import type { ResourceServerRegistry } from "../../resource-servers";
import type { AccessTokenClaims, AccessTokenIssuer, SubjectScopeResolver } from "../../tokens";
import { parseScope } from "../../tokens";
import { oauthError } from "../errors";
import { multi, single } from "../params";
import type { GrantContext, GrantHandler, GrantResult } from "./types";

export interface ClientCredentialsDeps {
  servers: ResourceServerRegistry;
  issuer: AccessTokenIssuer;
  /** What a client's service account may hold on a server now (the RBAC resolver). */
  scopes: SubjectScopeResolver;
}

export function clientCredentialsGrant(deps: ClientCredentialsDeps): GrantHandler {
  return {
    grantType: "client_credentials",
    async handle({ params, client }: GrantContext): Promise<GrantResult> {
      // RFC 6749 §4.4: only for confidential clients (authenticated with a secret).
      if (!client.secretHash) throw oauthError("unauthorized_client", "a public client may not use client_credentials");
      // A dcr/cimd client acts for users through connections; it never gets a token for itself.
      const tenantId = client.tenantId;
      if (tenantId === null) throw oauthError("unauthorized_client", "a dcr or cimd client may not use client_credentials");

      // RFC 8707 §2: one token, one audience. Several resources, an unknown one, another
      // workspace's, or a server this client is not registered against: invalid_target.
      const resources = multi(params, "resource");
      if (resources.length > 1) throw oauthError("invalid_target", "more than one resource");
      const server = resources.length === 1 ? await deps.servers.findByResource(tenantId, resources[0]!) : client.resourceServerId ? await deps.servers.get(client.resourceServerId) : null;
      if (!server) throw oauthError("invalid_target", "no live resource server with that resource in the client's workspace");
      const workspaceWide = client.resourceServerId === null;
      if ((!workspaceWide && server.id !== client.resourceServerId) || server.tenantId !== tenantId) throw oauthError("invalid_target", "the client is not registered for that resource server");

      // Every requested scope must be allowed: an unknown or forbidden scope fails the request
      // rather than being silently dropped, so the client learns its configuration is wrong.
      const allowed = workspaceWide ? await grantedOn(deps.scopes, client, tenantId, server) : client.allowedScopeSet;
      const requested = single(params, "scope");
      const scopes = requested === undefined ? (workspaceWide ? [...allowed] : client.allowedScopes) : parseScope(requested);
      if (!scopes.every((s) => allowed.has(s))) throw oauthError("invalid_scope", "a requested scope is not among the client's allowed scopes");

      return deps.issuer.issue({
        subject: client.clientId,
        clientId: client.clientId,
        tenantId,
        audience: server.resourceUrl,
        scopes,
        lifetimeSeconds: client.tokenLifetime,
      });
    },
  };
}

/** What a workspace-wide client's service account holds on `server` now (its bindings there; nothing when it has none). */
async function grantedOn(resolver: SubjectScopeResolver, client: GrantContext["client"], tenantId: string, server: { id: string; tenantId: string; resourceUrl: string }): Promise<ReadonlySet<string>> {
  const facts = { sub: client.clientId, sub_type: "client", tenant_id: tenantId, client_id: client.clientId } as AccessTokenClaims;
  return (await resolver.allowedScopes(facts, client, server)) ?? new Set();
}
