// RFC 6750 §3 Bearer challenges: the `error` and `scope` a resource server sends with 401/403
// (MCP authorization: a 403 with error="insufficient_scope" names the scopes the call needs).
// Only what a token client acts on is read; quoted strings may escape with a backslash.

export interface BearerChallenge {
  error?: string;
  scope?: string[];
  resourceMetadata?: string;
}

/** The Bearer challenge of a WWW-Authenticate header value, or undefined when there is none. */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const at = header.search(/(^|,\s*)Bearer(\s|$)/i);
  if (at < 0) return undefined;
  const params = new Map<string, string>();
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  re.lastIndex = at;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    if (!params.has(m[1]!.toLowerCase())) params.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!);
  }
  const scope = params.get("scope");
  return {
    error: params.get("error"),
    scope: scope === undefined ? undefined : scope.split(" ").filter(Boolean),
    resourceMetadata: params.get("resource_metadata"),
  };
}

/** `a` and `b` together, each scope once, `a`'s order first (sorted keys are the cache's business). */
export function unionOfScopes(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
