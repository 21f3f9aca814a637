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

  /**
   * Synchronous when the caller's server entry is cached (the common path; see
   * IntrospectionService.introspect for the rest); one promise otherwise. Throws OAuthError.
   */
  introspect(req: IntrospectionRequest): IntrospectionResult | Promise<IntrospectionResult> {
    if (!req.basic) throw oauthError("invalid_client", "no Basic credentials of a resource server");
    const server = this.servers.peek(req.basic.id);
    return server === undefined ? this.afterLoading(req) : this.answer(req, this.authenticate(server, req.basic.id, req.basic.secret));
  }

  private async afterLoading(req: IntrospectionRequest): Promise<IntrospectionResult> {
    const { id, secret } = req.basic!;
    return this.answer(req, this.authenticate(await this.servers.get(id), id, secret));
  }

  private answer(req: IntrospectionRequest, caller: RegisteredServer | undefined): IntrospectionResult | Promise<IntrospectionResult> {
    if (!caller) throw oauthError("invalid_client", "unknown resource server or wrong introspection secret");
    const token = required(req.params(), "token");
    return this.introspection.introspect(caller, token);
  }

  /** Basic rs_id:introspection_secret against the server entry (rotation and deletion apply at once). */
  private authenticate(rs: RegisteredServer | null, id: string, secret: string): RegisteredServer | undefined {
    if (rs && this.verified.check(id, secret, (verified) => verified === rs.secretHash)) return rs;
    const ok = this.servers.verifySecret(rs, secret);
    if (ok) this.verified.remember(id, secret, ok.secretHash);
    return ok;
  }
}
