// Redirect URI rules: exact string match against a registered URI (OAuth 2.1 §4.1.1, MCP
// "Open Redirection"), except that for loopback IP redirects the port is ignored, because native
// apps pick an ephemeral port at request time (RFC 8252 §7.3).

import { isLoopbackHttp } from "../../shared/loopback";

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

export function redirectUriMatches(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const loose = loopbackWithoutPort(requested);
  return loose !== null && registered.some((r) => loopbackWithoutPort(r) === loose);
}

/** Appends parameters to a redirect URI, keeping its own query (RFC 6749 §3.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}
