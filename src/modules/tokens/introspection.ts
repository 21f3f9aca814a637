// RFC 7662 token introspection for an authenticated resource server. Any reason a token is not
// usable by this caller yields exactly {"active": false} (RFC 7662 §2.2; no hint which check failed).
//
// One async boundary: the answer is judged from memory (verified-token cache, revocation denylist,
// client entry, the subject's access facts) synchronously when all of it is cached, the common case
// (resource servers introspect the same token repeatedly); otherwise ONE async step loads what is
// missing (docs/decisions/0001-per-entry-caches.md) and the same judgement runs. What cannot be
// loaded (the database is unreachable) is inactive: fail closed.
import { canonicalResource } from "../../shared/resource-url";
import type { AccessTokenClaims } from "./jwt";
import type { AccessTokenVerifier } from "./verified-tokens";
import type { RevocationList } from "./revocation-list";
import { NOT_CACHED, effectiveScope, type NotCached, type SubjectScopeResolver, type TokenClient, type TokenServer } from "./subject-scopes";

export interface ActiveIntrospection {
  active: true;
  sub: string;
  aud: string;
  scope: string;
  exp: number;
  client_id: string;
  iss: string;
  iat: number;
  token_type: "Bearer";
}
export type IntrospectionResult = ActiveIntrospection | { active: false };

const INACTIVE: { active: false } = Object.freeze({ active: false as const });

export interface ClientLookup {
  /** The client from memory: a value, null (unknown or revoked), or undefined when not cached. */
  peek(clientId: string): TokenClient | null | undefined;
  /** The client, loading it on a miss. */
  get(clientId: string): TokenClient | null | Promise<TokenClient | null>;
}

/** A dcr/cimd client's connection to a server (clients/connections.ts), as introspection needs it. */
export interface TokenConnection {
  tenantId: string;
  status: string;
}

export interface ConnectionLookup {
  /** From memory: a value, null (no connection), or undefined when not cached. */
  peek(clientId: string, resourceServerId: string): TokenConnection | null | undefined;
  get(clientId: string, resourceServerId: string): TokenConnection | null | Promise<TokenConnection | null>;
}

export class IntrospectionService {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationList,
    private readonly clients: ClientLookup,
    private readonly connections: ConnectionLookup,
    private readonly scopes: SubjectScopeResolver,
    private readonly onUnverifiable: (e: unknown) => void,
    /** Told of every answer (active or not, from cache or after loading): the operators' figures. */
    private readonly onAnswer: (active: boolean, fromCache: boolean) => void = () => undefined,
  ) {}

  /** The answer for `caller`: synchronous when everything it needs is cached, one promise otherwise. */
  introspect(caller: TokenServer, token: string): IntrospectionResult | Promise<IntrospectionResult> {
    const answer = this.fromMemory(caller, token);
    if (answer !== NOT_CACHED) {
      this.onAnswer(answer.active, true);
      return answer;
    }
    return this.afterLoading(caller, token)
      .catch((e) => this.failClosed(e))
      .then((loaded) => (this.onAnswer(loaded.active, false), loaded));
  }

  private fromMemory(caller: TokenServer, token: string): IntrospectionResult | NotCached {
    const claims = this.verifier.peek(token); // signature, alg, typ, iss, exp — verified before
    if (claims === undefined) return NOT_CACHED;
    const byClaims = this.judgeClaims(caller, claims);
    if (byClaims) return byClaims;
    const client = this.clients.peek(claims!.client_id);
    if (client === undefined) return NOT_CACHED;
    const connection = client?.tenantId === null ? this.connections.peek(client.clientId, caller.id) : null;
    if (connection === undefined) return NOT_CACHED;
    const byClient = judgeClient(caller, claims!, client, connection);
    if (byClient) return byClient;
    const allowed = this.scopes.peekAllowedScopes(claims!, client!, caller);
    return allowed === NOT_CACHED ? NOT_CACHED : answer(claims!, allowed);
  }

  /** The same judgement after loading what was not cached. */
  private async afterLoading(caller: TokenServer, token: string): Promise<IntrospectionResult> {
    const claims = await this.verifier.verify(token);
    const byClaims = this.judgeClaims(caller, claims);
    if (byClaims) return byClaims;
    const client = await this.clients.get(claims!.client_id);
    const connection = client?.tenantId === null ? await this.connections.get(client.clientId, caller.id) : null;
    const byClient = judgeClient(caller, claims!, client, connection);
    if (byClient) return byClient;
    return answer(claims!, await this.scopes.allowedScopes(claims!, client!, caller));
  }

  /** INACTIVE when the claims alone rule the token out for this caller; undefined to go on. */
  private judgeClaims(caller: TokenServer, claims: AccessTokenClaims | null): IntrospectionResult | undefined {
    if (!claims) return INACTIVE;
    if (this.revocations.isRevoked(claims.jti)) return INACTIVE;
    // A user token of a revoked family (stolen refresh token, revoked chain, replayed code).
    if (claims.fid !== undefined && this.revocations.isFamilyRevoked(claims.fid)) return INACTIVE;
    // Audience: only the server the token was minted for may learn about it (RFC 8707 §2; MCP
    // authorization spec, "Token Handling"; docs/decisions/0005-introspection.md).
    if (claims.tenant_id !== caller.tenantId) return INACTIVE;
    if (claims.aud !== caller.resourceUrl && canonicalResource(claims.aud) !== canonicalResource(caller.resourceUrl)) return INACTIVE;
    return undefined;
  }

  private failClosed(e: unknown): IntrospectionResult {
    this.onUnverifiable(e);
    return INACTIVE;
  }
}

/**
 * The client must still exist, be approved, and (for a client bound to one server) be bound to this
 * very server: a deleted server's tokens stay dead even if a new server takes its URL. A dcr/cimd
 * client needs its connection to this server, approved and of the token's workspace: revoking the
 * connection kills the client's tokens for this server only.
 */
export function judgeClient(caller: TokenServer, claims: AccessTokenClaims, client: TokenClient | null, connection: TokenConnection | null): IntrospectionResult | undefined {
  return clientMayReach(caller, claims.tenant_id, client, connection) ? undefined : INACTIVE;
}

/**
 * The client rule of introspection, for a workspace: also what the AuthZEN endpoint
 * (modules/authzen) applies, so a decision there never disagrees with introspection.
 */
export function clientMayReach(caller: Pick<TokenServer, "id">, tenantId: string, client: TokenClient | null, connection: TokenConnection | null): boolean {
  if (!client || client.status !== "approved") return false;
  if (client.tenantId === null) return !!connection && connection.status === "approved" && connection.tenantId === tenantId;
  if (client.tenantId !== tenantId) return false;
  return client.resourceServerId === null || client.resourceServerId === caller.id;
}

/** The active answer: the token's claims with the scope it is worth now (RFC 7662 §2.2 members). */
function answer(claims: AccessTokenClaims, allowed: ReadonlySet<string> | null): IntrospectionResult {
  if (!allowed) return INACTIVE;
  return {
    active: true,
    sub: claims.sub,
    aud: claims.aud,
    scope: effectiveScope(claims.scope, allowed),
    exp: claims.exp,
    client_id: claims.client_id,
    iss: claims.iss,
    iat: claims.iat,
    token_type: "Bearer",
  };
}
