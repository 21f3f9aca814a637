// POST /oauth/introspect (RFC 7662). The caller is a resource server authenticating with
// Basic rs_id:introspection_secret (spec "Authentication" 4); RFC 7662 §2.1 requires caller
// authentication so tokens cannot be scanned. A failed authentication is 401 invalid_client
// (§2.3); a missing `token` is 400 invalid_request. token_type_hint is accepted and ignored:
// only access tokens are introspectable here (§2.1 lets the server search all its types).
import type { RegisteredServer, ResourceServerRegistry } from "../resource-servers";
import type { IntrospectionResult, IntrospectionService } from "../tokens";
import { CredentialCache } from "./credential-cache";
import { oauthError } from "./errors";
import { required, type RawParams } from "./params";

export interface IntrospectionRequest {
  basic?: { id: string; secret: string };
  /** Read only after the caller authenticated, so an unauthenticated caller learns nothing. */
  params: () => RawParams;
}

export class IntrospectionEndpoint {
  private readonly verified = new CredentialCache();

  constructor(
    private readonly servers: ResourceServerRegistry,
    private readonly introspection: IntrospectionService,
  ) {}

  /** Synchronous on the common path (see IntrospectionService.introspect); throws OAuthError. */
  introspect(req: IntrospectionRequest): IntrospectionResult | Promise<IntrospectionResult> {
    const caller = req.basic ? this.authenticate(req.basic.id, req.basic.secret) : undefined;
    if (!caller) throw oauthError("invalid_client");
    const token = required(req.params(), "token");
    return this.introspection.introspect(caller, token);
  }

  /** Basic rs_id:introspection_secret against the in-memory registry (rotation and deletion apply at once). */
  private authenticate(id: string, secret: string): RegisteredServer | undefined {
    if (this.verified.check(id, secret, (rsId) => this.servers.get(rsId)?.secretHash)) return this.servers.get(id);
    const rs = this.servers.authenticate(id, secret);
    if (rs) this.verified.remember(id, secret, rs.secretHash);
    return rs;
  }
}
