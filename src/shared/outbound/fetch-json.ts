// One small JSON document from a URL someone else controls (a CIMD metadata document, a client's
// jwks_uri), under the scan's guard: the host is resolved once and refused when any address is not
// public (unless allowPrivateNetworks), the connection is pinned to the checked addresses,
// redirects are never followed, only 200 is success, at most maxBytes are read, within a short
// deadline (draft-ietf-oauth-client-id-metadata-document §6.5, RFC 6890 special-use addresses). The answer's Cache-Control max-age says how long it may be
// reused (RFC 9111), bounded; no-store/no-cache mean not at all. `what` names the document in
// the refusal reasons ("the metadata document ...").
import { BudgetExceededError, ByteBudget, boundedFetch } from "./bounded-fetch";
import { PinnedConnection, RedirectNotFollowedError } from "./pinned-fetch";
import { OutboundRefused, resolveAllowed } from "./resolve";

export interface OutboundFetchOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM) for the document's https server, besides the system's. */
  ca?: string;
}

/** Reuse bounds of a fetched document: honour the server's max-age within them (D6). */
export interface ReuseBounds {
  defaultSeconds: number;
  maxSeconds: number;
}

/**
 * `reached`: a connection to the (checked) address was attempted, so the reason tells something
 * about what listens there; false when the guard refused before connecting.
 */
export type FetchedJson = { ok: true; json: unknown; maxAgeSeconds: number } | { ok: false; reason: string; reached: boolean };

export async function fetchJsonDocument(url: URL, opts: OutboundFetchOptions, limits: { maxBytes: number; reuse: ReuseBounds; what: string }): Promise<FetchedJson> {
  const { what } = limits;
  let connection: PinnedConnection | undefined;
  let reached = false;
  try {
    const pinned = await resolveAllowed(url, opts.allowPrivateNetworks);
    reached = true;
    connection = new PinnedConnection(url, pinned, opts.ca === undefined ? {} : { ca: opts.ca });
    const fetcher = boundedFetch(new ByteBudget(limits.maxBytes), AbortSignal.timeout(opts.timeoutMs), connection.fetch);
    const res = await fetcher(url.href, { headers: { accept: "application/json" } });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `${what} answered HTTP ${res.status} (200 required)`, reached };
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: `${what} is not JSON`, reached };
    }
    return { ok: true, json, maxAgeSeconds: maxAge(res.headers.get("cache-control"), limits.reuse) };
  } catch (e) {
    return { ok: false, reason: reasonOf(e, opts.timeoutMs, limits), reached };
  } finally {
    connection?.close();
  }
}

function maxAge(cacheControl: string | null, reuse: ReuseBounds): number {
  if (cacheControl === null) return reuse.defaultSeconds;
  const directives = cacheControl.toLowerCase().split(",").map((d) => d.trim());
  if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
  const m = directives.map((d) => /^max-age=(\d+)$/.exec(d)).find(Boolean);
  return m ? Math.min(Number(m[1]), reuse.maxSeconds) : reuse.defaultSeconds;
}

function reasonOf(e: unknown, timeoutMs: number, { what, maxBytes }: { what: string; maxBytes: number }): string {
  if (e instanceof OutboundRefused) return `${what} cannot be fetched: ${e.reason}`;
  if (e instanceof RedirectNotFollowedError) return `${what} answered HTTP ${e.status}; redirects are not followed`;
  if (e instanceof BudgetExceededError || (e as { cause?: unknown })?.cause instanceof BudgetExceededError) return `${what} is larger than ${maxBytes} bytes`;
  const name = (e as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") return `${what} did not arrive within ${timeoutMs} ms`;
  return `${what} cannot be fetched: connection failed`;
}
