// Wire view of a client. Never carries the secret or its hash: the secret appears once, in the
// creation or rotation answer (client-service.ts), and nowhere else.
import type { Client } from "../../generated/sqlite/client";

export function toClientView(c: Client) {
  return {
    client_id: c.clientId,
    client_name: c.clientName,
    description: c.description,
    kind: c.kind,
    registration_mode: c.registrationMode,
    status: c.status,
    resource_server_id: c.resourceServerId,
    tenant_id: c.tenantId,
    workspace_id: c.tenantId,
    redirect_uris: c.redirectUris as string[],
    grant_types: c.grantTypes as string[],
    allowed_scopes: c.allowedScopes as string[],
    token_lifetime: c.tokenLifetime,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    created_at: c.createdAt.toISOString(),
    revoked_at: c.revokedAt?.toISOString() ?? null,
    last_used_at: c.lastUsedAt?.toISOString() ?? null,
  };
}
export type ClientView = ReturnType<typeof toClientView>;

/** The creation answer: the view plus the credential pair (RFC 7591 §3.2.1 names for the extras). */
export type CreatedClientView = ClientView & {
  client_secret: string;
  client_id_issued_at: number;
  /** 0 = the secret does not expire (RFC 7591 §3.2.1); rotation is an admin action. */
  client_secret_expires_at: 0;
};

/**
 * The rotation answer: the view plus the new secret (shown only here) and until when the old one
 * is still accepted (null: it was refused from the moment of the rotation).
 */
export type RotatedSecretView = ClientView & {
  client_secret: string;
  client_secret_expires_at: 0;
  rotated_at: string;
  previous_secret_expires_at: string | null;
};
