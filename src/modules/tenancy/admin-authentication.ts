// Admin authentication, the one implementation behind the admin REST routes and the cockpit graph
// (spec "Authentication" 3 and 5): a missing or invalid bearer token is 401 with a Bearer challenge
// (RFC 6750 §3), a signed admin token without a workspace is 401 "tenant_id required in JWT", and a
// caller who is not an active member of that workspace is 403. The answer is the Actor the services
// check roles against. Transports only map the error to their wire shape.
import type { Actor } from "../../shared/actor";
import { DomainError, forbidden } from "../../shared/errors";
import type { JwtService } from "../tokens";
import type { TenancyService } from "./tenancy-service";

const REALM = 'Bearer realm="toolgate-admin"';
export const ENROL_FIRST =
  "this workspace requires a second factor for administrators: enrol one (POST /svc/uflow/mfa/totp/enroll or POST /svc/webauthn/register/begin), then sign in again";

/** A 401 with the WWW-Authenticate challenge the transport must send (RFC 6750 §3). */
export class AdminAuthError extends DomainError {
  constructor(
    message: string,
    readonly challenge?: string,
  ) {
    super("unauthenticated", message);
  }
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1 b64token). */
export function bearerToken(header: string | null | undefined): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header ?? "");
  return m?.[1];
}

export class AdminAuthenticator {
  constructor(
    private readonly jwt: JwtService,
    private readonly tenancy: TenancyService,
  ) {}

  /** The caller of an admin request, from its Authorization header; throws AdminAuthError (401) or a 403. */
  async authenticate(authorization: string | null | undefined): Promise<Actor> {
    const { actor, enrolOnly } = await this.resolve(authorization);
    // The workspace requires a second factor and this admin had none at sign-in: the token serves
    // to enrol one (the self-service routes), then they sign in again (docs/operations.md).
    if (enrolOnly) throw forbidden(ENROL_FIRST);
    return actor;
  }

  /**
   * The person behind an admin token, for their own sign-in settings (second factors, passkeys,
   * sessions): an enrol-only token is accepted here.
   */
  async authenticatePerson(authorization: string | null | undefined): Promise<Actor> {
    return (await this.resolve(authorization)).actor;
  }

  private async resolve(authorization: string | null | undefined): Promise<{ actor: Actor; enrolOnly: boolean }> {
    const token = bearerToken(authorization);
    if (!token) throw new AdminAuthError("missing bearer token", REALM);
    const claims = await this.jwt.verifyAdminToken(token);
    if (!claims) throw new AdminAuthError("invalid or expired token", `${REALM}, error="invalid_token"`);
    // Admin tokens carry workspace_id and, for compatibility, tenant_id with the same value
    // (docs/decisions/0002-workspace-is-tenant.md).
    const tenantId = claims.workspace_id ?? claims.tenant_id;
    if (typeof tenantId !== "string" || tenantId === "") throw new AdminAuthError("tenant_id required in JWT");
    const actor = await this.tenancy.resolveActor(claims.sub, tenantId, typeof claims.cv === "number" ? claims.cv : 0);
    // Issued before an operator reset the password: as dead as an expired token.
    if (!actor) throw new AdminAuthError("invalid or expired token", `${REALM}, error="invalid_token"`);
    return { actor, enrolOnly: claims.mfa_enrol_only === true };
  }
}
