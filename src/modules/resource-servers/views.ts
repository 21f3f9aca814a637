// Wire views of a resource server. Field names follow the spec; the two Applications badges are
// derived on every read and never stored (spec "Resource server").
import type { ResourceServer } from "../../generated/sqlite/client";

export interface ResourceServerEndpoints {
  issuer_url: string;
  jwks_uri: string;
  introspection_endpoint: string;
  resource_url: string;
  scope_matrix_url: string;
  manifest_url: string;
}

export function endpointsFor(publicUrl: string, rs: Pick<ResourceServer, "id" | "resourceUrl">): ResourceServerEndpoints {
  const base = publicUrl.replace(/\/+$/, "");
  return {
    issuer_url: publicUrl,
    jwks_uri: `${base}/oauth/jwks`,
    introspection_endpoint: `${base}/oauth/introspect`,
    resource_url: rs.resourceUrl,
    scope_matrix_url: `${base}/svc/resource-servers/${rs.id}/sdk-policy`,
    manifest_url: `${base}/svc/resource-servers/${rs.id}/sdk-manifest`,
  };
}

export function badgesOf(rs: Pick<ResourceServer, "state" | "scanGeneration">): { discovered: boolean; not_launched: boolean } {
  return { discovered: rs.state === "needs_setup" && rs.scanGeneration > 0, not_launched: rs.state !== "ready" };
}

export function toResourceServerView(publicUrl: string, rs: ResourceServer) {
  return {
    id: rs.id,
    tenant_id: rs.tenantId,
    workspace_id: rs.tenantId,
    name: rs.name,
    public_base_url: rs.publicBaseUrl,
    protected_base_path: rs.protectedBasePath,
    ...endpointsFor(publicUrl, rs),
    validation_mode: rs.validationMode,
    scopes_supported: rs.scopesSupported as string[],
    registration_modes: rs.registrationModes as string[],
    status: rs.state,
    state: rs.state,
    scan_generation: rs.scanGeneration,
    last_successful_generation: rs.lastSuccessfulGeneration,
    last_scan_status: rs.lastScanStatus,
    last_scan_error: rs.lastScanError,
    setup_completed_at: rs.setupCompletedAt?.toISOString() ?? null,
    setup_completed_by: rs.setupCompletedBy,
    badges: badgesOf(rs),
    created_at: rs.createdAt.toISOString(),
    updated_at: rs.updatedAt.toISOString(),
  };
}
export type ResourceServerView = ReturnType<typeof toResourceServerView>;
