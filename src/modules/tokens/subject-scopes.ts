// What an access token's scope is worth *now*. The spec's introspection `scope` is "resolved
// against current role assignments: filtered to what the subject may currently hold, not what
// the token was issued with" (spec "Introspection response"). So the answer is always
//   token scopes ∩ what the subject may hold now
// and never wider than the token. Who "the subject" is depends on the token:
//   - machine tokens (client credentials; sub = client_id, no sub_type or sub_type "client"):
//     the client's current allowed scopes (in memory, from the ClientRegistry);
//   - user tokens (sub_type "user"): the user's effective role bindings on that server, bounded by
//     the client's current allowed scopes.
// Both are answered by the RBAC module's ScopeResolver through `SubjectScopeSource`.
import type { AccessTokenClaims } from "./jwt";

/** The client as introspection sees it (the clients module's RegisteredClient satisfies this). */
export interface TokenClient {
  /** Internal id (the subject of the client's service-account bindings). */
  id: string;
  clientId: string;
  /** null for a dcr/cimd client (it reaches a server through a connection). */
  tenantId: string | null;
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

import { NOT_CACHED, type NotCached } from "../../shared/entry-cache";

export { NOT_CACHED, type NotCached };

/**
 * The scopes the token's subject may hold on `server` right now, or null when it may hold none
 * at all (suspended user, left membership, unknown subject): the token is then inactive.
 */
export interface SubjectScopeSource {
  /** From memory only: NOT_CACHED when a fact it needs is not cached. */
  peekAllowedScopes(token: AccessTokenClaims, client: TokenClient, server: TokenServer): ReadonlySet<string> | null | NotCached;
  /** Loading what is missing. */
  allowedScopes(token: AccessTokenClaims, client: TokenClient, server: TokenServer): Promise<ReadonlySet<string> | null>;
}

/** The seam introspection depends on (the RBAC module's ScopeResolver implements it). */
export type SubjectScopeResolver = SubjectScopeSource;

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
  if (!tokenScope) return "";
  // parseScope(tokenScope).filter(allowed.has).join(" "), written as one loop: it runs on every
  // introspection (docs/benchmarks.md "Round 2"). A token's scopes are few; past a handful the
  // duplicate check uses a set so a long scope string stays linear.
  const words = tokenScope.split(" ");
  const seen = words.length > 16 ? new Set<string>() : undefined;
  const kept: string[] = [];
  for (const w of words) {
    if (w.length === 0 || !allowed.has(w)) continue;
    if (seen ? seen.has(w) : kept.includes(w)) continue;
    seen?.add(w);
    kept.push(w);
  }
  // Every word kept, none empty or repeated: the join would rebuild the token's own string.
  return kept.length === words.length ? tokenScope : kept.join(" ");
}
