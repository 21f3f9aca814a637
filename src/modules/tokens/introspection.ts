// RFC 7662 token introspection for an authenticated resource server. Answers from memory only
// (verified-token cache, revocation denylist, client registry, subject scope resolver): no
// database query per request (DESIGN.md "Hot paths"). Any reason a token is not usable by this
// caller yields exactly {"active": false} (RFC 7662 §2.2; no hint which check failed).
import { canonicalResource } from "../../shared/resource-url";
import type { AccessTokenClaims } from "./jwt";
import type { AccessTokenVerifier } from "./verified-tokens";
import type { RevocationList } from "./revocation-list";
import { effectiveScope, type SubjectScopeResolver, type TokenClient, type TokenServer } from "./subject-scopes";

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
  /** The client (null when unknown or revoked); synchronous when it is cached. */
  get(clientId: string): TokenClient | null | Promise<TokenClient | null>;
}

export class IntrospectionService {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationList,
    private readonly clients: ClientLookup,
    private readonly scopes: SubjectScopeResolver,
    private readonly onUnverifiable: (e: unknown) => void,
  ) {}

  /**
   * The answer for `caller`. Synchronous when the token was verified before and the scope
   * resolver answers from memory (the common case: resource servers introspect the same token
   * repeatedly); a promise otherwise.
   */
  introspect(caller: TokenServer, token: string): IntrospectionResult | Promise<IntrospectionResult> {
    try {
      const result = this.introspectNow(caller, token);
      return result instanceof Promise ? result.catch((e) => this.failClosed(e)) : result;
    } catch (e) {
      return this.failClosed(e);
    }
  }

  /** What cannot be verified now (the database is unreachable on a cache miss) is inactive. */
  private failClosed(e: unknown): IntrospectionResult {
    this.onUnverifiable(e);
    return INACTIVE;
  }

  private introspectNow(caller: TokenServer, token: string): IntrospectionResult | Promise<IntrospectionResult> {
    const cached = this.verifier.peek(token); // signature, alg, typ, iss, exp — verified before
    if (cached !== undefined) return this.judge(caller, cached);
    return this.verifier.verify(token).then((claims) => this.judge(caller, claims));
  }

  private judge(caller: TokenServer, claims: AccessTokenClaims | null): IntrospectionResult | Promise<IntrospectionResult> {
    if (!claims) return INACTIVE;
    if (this.revocations.isRevoked(claims.jti)) return INACTIVE;
    // A user token of a revoked family (stolen refresh token, revoked chain, replayed code).
    if (claims.fid !== undefined && this.revocations.isFamilyRevoked(claims.fid)) return INACTIVE;
    // Audience: only the server the token was minted for may learn about it (RFC 8707 §2, MCP R7).
    if (claims.tenant_id !== caller.tenantId) return INACTIVE;
    if (claims.aud !== caller.resourceUrl && canonicalResource(claims.aud) !== canonicalResource(caller.resourceUrl)) return INACTIVE;
    const client = this.clients.get(claims.client_id);
    return client instanceof Promise ? client.then((c) => this.judgeClient(caller, claims, c)) : this.judgeClient(caller, claims, client);
  }

  private judgeClient(caller: TokenServer, claims: AccessTokenClaims, client: TokenClient | null): IntrospectionResult | Promise<IntrospectionResult> {
    // The client must still exist, be approved, and (for a client bound to one server) be bound to
    // this very server: a deleted server's tokens stay dead even if a new server takes its URL.
    if (!client || client.status !== "approved" || client.tenantId !== claims.tenant_id) return INACTIVE;
    if (client.resourceServerId !== null && client.resourceServerId !== caller.id) return INACTIVE;
    const allowed = this.scopes.allowedScopes(claims, client, caller);
    return allowed instanceof Promise ? allowed.then((a) => answer(claims, a)) : answer(claims, allowed);
  }
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
