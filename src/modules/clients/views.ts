// Wire view of a client. Never carries the secret or its hash: the secret appears once, in the
// creation or rotation answer (client-service.ts), and nowhere else.
import type { Client, Connection } from "../../generated/sqlite/client";
import { DEFAULT_ID_TOKEN_ALG } from "./registration-metadata";

/** A role through which scopes were granted (the spec's "Active connection row": "role and scopes granted"). */
export interface RoleGrantedView {
  role_id: string;
  role_name: string;
}

/** A pre-registered client's grants on its server now: service-account roles, and allowed scopes plus theirs. */
export interface PreregGrants {
  roles: RoleGrantedView[];
  scopes: string[];
}

/**
 * One client as a server's list shows it. A dcr/cimd client is shown through its connection to
 * that server (its status, workspace and connection times, and the scopes and roles of its latest
 * authorization); a pre-registered one through its own record (last_connected_at is its last token
 * request) and `grants`, what it holds on the server now.
 */
export function toClientView(c: Client, connection?: Connection | null, grants?: PreregGrants) {
  const connected = connection ?? null;
  return {
    client_id: c.clientId,
    client_name: c.clientName,
    /** Whether an administrator typed the name: dcr/cimd clients name themselves (shown as unverified). */
    client_name_verified: c.registrationMode === "prereg",
    description: c.description,
    kind: c.kind,
    registration_mode: c.registrationMode,
    status: connected ? connected.status : c.status,
    resource_server_id: connected ? connected.resourceServerId : c.resourceServerId,
    tenant_id: connected ? connected.tenantId : c.tenantId,
    workspace_id: connected ? connected.tenantId : c.tenantId,
    redirect_uris: c.redirectUris as string[],
    grant_types: c.grantTypes as string[],
    allowed_scopes: c.allowedScopes as string[],
    token_lifetime: c.tokenLifetime,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    created_at: c.createdAt.toISOString(),
    revoked_at: (connected ? connected.revokedAt : c.revokedAt)?.toISOString() ?? null,
    last_used_at: c.lastUsedAt?.toISOString() ?? null,
    first_connected_at: connected ? connected.firstConnectedAt.toISOString() : null,
    last_connected_at: (connected ? connected.lastConnectedAt : c.lastUsedAt)?.toISOString() ?? null,
    /**
     * Connections: the scopes granted at the latest authorization (what tokens carry is resolved
     * at introspection). Pre-registered clients: what the client holds on its server now.
     */
    scopes_granted: connected ? (connected.scopesGranted as string[]) : (grants?.scopes ?? [...(c.allowedScopes as string[])].sort()),
    /** The roles through which those scopes were granted: the signed-in user's (connections) or the client's service-account roles. */
    roles_granted: connected ? ((connected.rolesGranted as RoleGrantedView[] | null) ?? []) : (grants?.roles ?? []),
    /** The user who signed in at the connection's latest authorization (null for pre-registered clients). */
    connected_user_id: connected?.lastUserId ?? null,
    ...oidcView(c.registrationMetadata),
  };
}
export type ClientView = ReturnType<typeof toClientView>;

/** OpenID Connect settings (every registration mode keeps them in registrationMetadata). */
function oidcView(metadata: unknown): { post_logout_redirect_uris: string[]; id_token_signed_response_alg: string } {
  const m = (typeof metadata === "object" && metadata !== null ? metadata : {}) as { post_logout_redirect_uris?: string[]; id_token_signed_response_alg?: string };
  return { post_logout_redirect_uris: m.post_logout_redirect_uris ?? [], id_token_signed_response_alg: m.id_token_signed_response_alg ?? DEFAULT_ID_TOKEN_ALG };
}

/** The creation answer: the view plus the credential pair (RFC 7591 §3.2.1 names for the extras). */
export type CreatedClientView = ClientView & {
  /** Absent for public clients (token_endpoint_auth_method "none"). */
  client_secret?: string;
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
