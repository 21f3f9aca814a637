// RFC 9728 protected-resource metadata and the RFC 6750 §3 challenges that point to it.

/**
 * Where clients look for the metadata of `resource` (RFC 9728 §3.1): the well-known segment
 * inserted between host and path (path-inserted form), and the root form that clients try next
 * (MCP 2025-11-25 "Protected Resource Metadata Discovery"). Both answer the same document.
 */
export function metadataPaths(resource: string): { pathInserted: string; root: string } {
  const path = new URL(resource).pathname.replace(/\/+$/, "");
  const root = "/.well-known/oauth-protected-resource";
  return { pathInserted: root + path, root };
}

export function metadataUrl(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}${metadataPaths(resource).pathInserted}`;
}

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
}

/** A quoted-string value (RFC 9110 §5.6.4): no quote, backslash or control character survives. */
function quoted(value: string): string {
  return `"${value.replace(/[\u0000-\u001f\u007f"\\]/g, " ")}"`;
}

export interface Challenge {
  resourceMetadata: string;
  scope?: readonly string[];
  error?: "invalid_token" | "insufficient_scope" | "invalid_request";
  description?: string;
}

/**
 * `Bearer resource_metadata="…", scope="…"[, error="…", error_description="…"]`. RFC 6750 §3.1: a
 * request that carried no token gets no error code; the MCP SDK clients read `resource_metadata`
 * and `scope` from the first Bearer challenge.
 */
export function bearerChallenge(c: Challenge): string {
  const params = [`resource_metadata=${quoted(c.resourceMetadata)}`];
  if (c.scope && c.scope.length > 0) params.push(`scope=${quoted(c.scope.join(" "))}`);
  if (c.error) params.push(`error=${quoted(c.error)}`);
  if (c.error && c.description) params.push(`error_description=${quoted(c.description)}`);
  return `Bearer ${params.join(", ")}`;
}
