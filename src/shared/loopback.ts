// Which http redirect URIs count as loopback (RFC 8252 §7.3): registration accepts plain http only
// for these hosts, and redirect matching ignores their port. Both rules must agree, so they share
// this one list. "localhost" is included for interop: Claude Code and others register
// http://localhost:<port>/callback (docs/decisions/0008-loopback-redirect-uris.md).
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

export function isLoopbackHttp(u: URL): boolean {
  return u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname);
}
