// Redirect URI rules: exact string match against a registered URI (OAuth 2.1 §4.1.1, MCP
// "Open Redirection"), except that for loopback IP redirects the port is ignored, because native
// apps pick an ephemeral port at request time (RFC 8252 §7.3). Registered URIs are stored in their
// normalised form (shared/urls.ts); the presented one is read the same strict way, so a URI that
// parsers could read differently never matches.

import { isLoopbackHttp } from "../../shared/loopback";
import { strictUrl } from "../../shared/urls";

function loopbackWithoutPort(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return null;
  }
  if (!isLoopbackHttp(u)) return null;
  u.port = "";
  return u.href;
}

export function redirectUriMatches(presented: string, registered: readonly string[]): boolean {
  const strict = strictUrl(presented, { schemes: ["https:", "http:"], allowQuery: true });
  if (!strict.ok) return false;
  const requested = strict.href;
  if (registered.includes(requested)) return true;
  // Rows registered before URIs were stored normalised.
  if (registered.some((r) => normalised(r) === requested)) return true;
  const loose = loopbackWithoutPort(requested);
  return loose !== null && registered.some((r) => loopbackWithoutPort(r) === loose);
}

function normalised(uri: string): string | undefined {
  const r = strictUrl(uri, { schemes: ["https:", "http:"], allowQuery: true });
  return r.ok ? r.href : undefined;
}

/** Appends parameters to a redirect URI, keeping its own query (RFC 6749 §3.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}
