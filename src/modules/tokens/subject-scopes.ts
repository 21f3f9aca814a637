// What an access token's scope is worth *now*. The spec's introspection `scope` is "resolved
// against current role assignments: filtered to what the subject may currently hold, not what
// the token was issued with" (spec "Introspection response"). So the answer is always
//   token scopes ∩ what the subject may hold now
// and never wider than the token. Who "the subject" is depends on the token:
//   - machine tokens (client credentials; sub = client_id, no sub_type or sub_type "client"):
//     the client's current allowed scopes (in memory, from the ClientRegistry);
//   - user tokens (sub_type "user"): the user's effective role bindings on that server, bounded by
//     the client's current allowed scopes — supplied by the RBAC module through
//     `SubjectScopeSource`. Without it a user token resolves to nothing and introspects inactive
//     (fail closed, DESIGN.md "Introspection").
import type { AccessTokenClaims } from "./jwt";

type MaybePromise<T> = T | Promise<T>;

/** The client as introspection sees it (the clients module's RegisteredClient satisfies this). */
export interface TokenClient {
  clientId: string;
  tenantId: string;
  resourceServerId: string | null;
  status: string;
  allowedScopeSet: ReadonlySet<string>;
}

/** The resource server a token is being introspected for (the caller). */
export interface TokenServer {
  id: string;
  tenantId: string;
  resourceUrl: string;
}

/**
 * The scopes the token's subject may hold on `server` right now, or null when it may hold none
 * at all (suspended user, left membership, unknown subject): the token is then inactive.
 * Implementations must answer from memory: introspection is a hot path.
 */
export interface SubjectScopeSource {
  allowedScopes(token: AccessTokenClaims, client: TokenClient, server: TokenServer): MaybePromise<ReadonlySet<string> | null>;
}

/** The seam introspection depends on; the default dispatches on the token's subject type. */
export type SubjectScopeResolver = SubjectScopeSource;

/** Machine tokens: the client's current allowed scopes. */
export const clientScopeSource: SubjectScopeSource = {
  allowedScopes: (_token, client) => client.allowedScopeSet,
};

export class DefaultSubjectScopeResolver implements SubjectScopeResolver {
  /** `users` is the RBAC module's resolver for user tokens; absent = user tokens are inactive. */
  constructor(private readonly users?: SubjectScopeSource) {}

  allowedScopes(token: AccessTokenClaims, client: TokenClient, server: TokenServer): MaybePromise<ReadonlySet<string> | null> {
    switch (token.sub_type ?? "client") {
      case "client":
        return clientScopeSource.allowedScopes(token, client, server);
      case "user":
        return this.users ? this.users.allowedScopes(token, client, server) : null;
      default:
        return null; // an unknown subject type holds nothing
    }
  }
}

/** RFC 6749 §3.3 scope string -> distinct scope tokens, in order. */
export function parseScope(scope: string | undefined): string[] {
  if (!scope) return [];
  return [...new Set(scope.split(" ").filter((s) => s.length > 0))];
}

/**
 * The single scope computation of introspection: the token's scopes that the subject may still
 * hold, in the token's order, as an RFC 6749 scope string.
 */
export function effectiveScope(tokenScope: string | undefined, allowed: ReadonlySet<string>): string {
  return parseScope(tokenScope)
    .filter((s) => allowed.has(s))
    .join(" ");
}
