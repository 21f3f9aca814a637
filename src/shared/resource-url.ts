// resource_url = public_base_url joined with protected_base_path by exactly one slash.
// It is the RFC 8707 resource indicator and the `aud` of every token minted for the server.
// `X` and `X/` name the same resource: real MCP clients send `new URL(resource).href`, which adds
// a slash to an origin-only URL, so lookups use a canonical key.
// Both decisions, with the clients observed: docs/decisions/0004-resource-url.md.

export function joinResourceUrl(publicBaseUrl: string, protectedBasePath: string): string {
  const base = publicBaseUrl.replace(/\/+$/, "");
  const path = protectedBasePath.replace(/^\/+/, "");
  return `${base}/${path}`;
}

/** The lookup key: lower-case scheme and host (URL does that), no trailing slash, no default port. */
export function canonicalResource(resource: string): string | null {
  let u: URL;
  try {
    u = new URL(resource);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  if (u.hash || u.username || u.password) return null;
  return u.href.replace(/\/+$/, "");
}
