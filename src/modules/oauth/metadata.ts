// Authorization server metadata (RFC 8414 §2), served at /.well-known/oauth-authorization-server
// and, with the same content, at /.well-known/openid-configuration. Built from what is actually
// wired — the registered grants and client authentication methods — so it advertises only what
// works (docs/decisions/0007-discovery.md): when a grant is added, its metadata contribution
// appears here.
//
// Decisions (docs/oauth.md "Discovery"):
// - `issuer` is TOOLGATE_PUBLIC_URL exactly as configured (RFC 8414 §3.3: clients compare it
//   byte for byte with the identifier they built the well-known URL from).
// - No `authorization_endpoint` while no grant uses one (RFC 8414 §2 makes it REQUIRED only then);
//   `response_types_supported` is REQUIRED, so it is the (possibly empty) union of the grants'
//   response types. The MCP TypeScript SDK's schema insists on `authorization_endpoint` even for a
//   client-credentials-only server (docs/decisions/0007-discovery.md); we do not advertise a fake
//   endpoint to please it — the authorization_code grant contributes the real one.
// - No `scopes_supported`: scopes belong to resource servers of many workspaces; a union in an
//   unauthenticated document would leak one workspace's scope names to everyone. Each MCP server
//   lists its own scopes in its Protected Resource Metadata (RFC 9728).
// - No OIDC-only members here: this is the RFC 8414 document. The OpenID Connect Discovery
//   document (/.well-known/openid-configuration) is this one plus OIDC's members
//   (buildOpenIdConfiguration below; docs/openid-provider.md).
import { CLIENT_AUTH_METHODS } from "./client-auth";
import { ASSERTION_SIGNING_ALGS } from "./assertions/assertion-verifier";
import type { GrantHandler } from "./grants/types";

export interface ServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  jwks_uri: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported: string[];
  response_modes_supported?: string[];
  grant_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  revocation_endpoint: string;
  revocation_endpoint_auth_methods_supported: string[];
  introspection_endpoint: string;
  introspection_endpoint_auth_methods_supported: string[];
  code_challenge_methods_supported?: string[];
  [extension: string]: unknown;
}

/** Paths of the endpoints this server implements (relative to the public URL). */
export const OAUTH_PATHS = {
  token: "/oauth/token",
  introspection: "/oauth/introspect",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
  /** The spec's "OIDC userinfo" path. */
  userinfo: "/userinfo",
  endSession: "/oauth/logout",
} as const;

/** What OpenID Connect Discovery adds (OIDC Discovery §3), beside the RFC 8414 members. */
export interface OpenIdConfigurationInput {
  idTokenSigningAlgs: readonly string[];
  acrValues: readonly string[];
  scopes: readonly string[];
}

/**
 * The OpenID Connect Discovery 1.0 document: every REQUIRED member (issuer, authorization_endpoint,
 * token_endpoint (no implicit flow), jwks_uri, response_types_supported, subject_types_supported,
 * id_token_signing_alg_values_supported), the RECOMMENDED ones (userinfo_endpoint,
 * registration_endpoint, scopes_supported with openid, claims_supported) and what a client must
 * not assume (request_uri_parameter_supported defaults to true, so it says false). Only
 * OpenID Connect's own scopes are listed: resource servers' scopes belong to their workspaces.
 */
export function buildOpenIdConfiguration(oauth: ServerMetadata, oidc: OpenIdConfigurationInput): ServerMetadata {
  const base = oauth.issuer.replace(/\/+$/, "");
  return {
    ...oauth,
    userinfo_endpoint: base + OAUTH_PATHS.userinfo,
    end_session_endpoint: base + OAUTH_PATHS.endSession,
    scopes_supported: [...oidc.scopes],
    response_modes_supported: ["query"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...oidc.idTokenSigningAlgs],
    acr_values_supported: [...oidc.acrValues],
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash", "amr", "acr", "sid", "email", "email_verified", "preferred_username", "updated_at"],
    claim_types_supported: ["normal"],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    prompt_values_supported: ["none", "login", "consent"],
  };
}

/** Adds fields that belong to a feature rather than a grant (e.g. registration_endpoint for DCR). */
export type MetadataContributor = (base: string) => Partial<ServerMetadata>;

export function buildServerMetadata(publicUrl: string, grants: readonly GrantHandler[], contributors: readonly MetadataContributor[] = []): ServerMetadata {
  const base = publicUrl.replace(/\/+$/, "");
  const metadata: ServerMetadata = {
    issuer: publicUrl,
    token_endpoint: base + OAUTH_PATHS.token,
    jwks_uri: base + OAUTH_PATHS.jwks,
    response_types_supported: [],
    grant_types_supported: grants.map((g) => g.grantType),
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    // RFC 8414 §2: required when private_key_jwt is listed (and token_endpoint_auth_signing_alg_values_supported with it, RFC 8414 §2).
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_SIGNING_ALGS],
    // RFC 7009 §2.1: revocation authenticates clients exactly like the token endpoint.
    revocation_endpoint: base + OAUTH_PATHS.revocation,
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: [...ASSERTION_SIGNING_ALGS],
    // Resource servers authenticate with Basic rs_id:introspection_secret (spec "Authentication" 4).
    introspection_endpoint: base + OAUTH_PATHS.introspection,
    introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
  };
  for (const part of [...grants.map((g) => g.metadata?.bind(g)), ...contributors]) {
    if (!part) continue;
    for (const [key, value] of Object.entries(part(base))) {
      const current = metadata[key];
      // Lists are unions (two grants may both add response types); scalars are set once.
      metadata[key] = Array.isArray(current) && Array.isArray(value) ? [...new Set([...current, ...value])] : value;
    }
  }
  return metadata;
}
