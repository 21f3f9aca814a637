// Fetches a Client ID Metadata Document with the same guard as a scan (src/shared/outbound): the
// host is resolved once and refused when any address is not public (unless
// TOOLGATE_SCAN_ALLOW_PRIVATE), the connection is pinned to the checked addresses, redirects are
// never followed, only 200 is success, at most 5 KB are read, within a short deadline
// (notes/mcp-auth.md D3, D7). The answer's Cache-Control max-age says how long the document may
// be reused (RFC 9111), bounded; no-store/no-cache mean not at all.
import { BudgetExceededError, ByteBudget, boundedFetch } from "../../../shared/outbound/bounded-fetch";
import { PinnedConnection, RedirectNotFollowedError } from "../../../shared/outbound/pinned-fetch";
import { OutboundRefused, resolveAllowed } from "../../../shared/outbound/resolve";

export const CIMD_MAX_BYTES = 5 * 1024;
/** Reuse bounds of a fetched document: honour the server's max-age within them (D6). */
export const CIMD_CACHE = { defaultSeconds: 300, maxSeconds: 86_400 } as const;

export interface CimdFetchOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM) for the document's https server, besides the system's. */
  ca?: string;
}

export type FetchedDocument = { ok: true; json: unknown; maxAgeSeconds: number } | { ok: false; reason: string };

export async function fetchCimdDocument(url: URL, opts: CimdFetchOptions): Promise<FetchedDocument> {
  let connection: PinnedConnection | undefined;
  try {
    const pinned = await resolveAllowed(url, opts.allowPrivateNetworks);
    connection = new PinnedConnection(url, pinned, opts.ca === undefined ? {} : { ca: opts.ca });
    const fetcher = boundedFetch(new ByteBudget(CIMD_MAX_BYTES), AbortSignal.timeout(opts.timeoutMs), connection.fetch);
    const res = await fetcher(url.href, { headers: { accept: "application/json" } });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `the metadata document answered HTTP ${res.status} (200 required)` };
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: "the metadata document is not JSON" };
    }
    return { ok: true, json, maxAgeSeconds: maxAge(res.headers.get("cache-control")) };
  } catch (e) {
    return { ok: false, reason: reasonOf(e, opts.timeoutMs) };
  } finally {
    connection?.close();
  }
}

function maxAge(cacheControl: string | null): number {
  if (cacheControl === null) return CIMD_CACHE.defaultSeconds;
  const directives = cacheControl.toLowerCase().split(",").map((d) => d.trim());
  if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
  const m = directives.map((d) => /^max-age=(\d+)$/.exec(d)).find(Boolean);
  return m ? Math.min(Number(m[1]), CIMD_CACHE.maxSeconds) : CIMD_CACHE.defaultSeconds;
}

function reasonOf(e: unknown, timeoutMs: number): string {
  if (e instanceof OutboundRefused) return `the metadata document cannot be fetched: ${e.reason}`;
  if (e instanceof RedirectNotFollowedError) return `the metadata document answered HTTP ${e.status}; redirects are not followed`;
  if (e instanceof BudgetExceededError || (e as { cause?: unknown })?.cause instanceof BudgetExceededError) return `the metadata document is larger than ${CIMD_MAX_BYTES} bytes`;
  const name = (e as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") return `the metadata document did not arrive within ${timeoutMs} ms`;
  return "the metadata document cannot be fetched: connection failed";
}
