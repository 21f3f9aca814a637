// One POST of a body to a URL someone else chose (a webhook endpoint), under the same guard as
// every outbound request (resolve.ts, pinned-fetch.ts): the host is resolved and checked on every
// attempt (an answer that changed since the endpoint was saved is checked again: DNS rebinding),
// the connection is pinned to the checked addresses, redirects are not followed, the answer's body
// is read up to a few kilobytes and dropped (never stored or echoed), within a deadline.
import { PinnedConnection, RedirectNotFollowedError } from "./pinned-fetch";
import { OutboundRefused, resolveAllowed } from "./resolve";

export interface PostOptions {
  allowPrivateNetworks: boolean;
  /** The variable that allows private networks, named in the refusal. */
  allowVariable: string;
  timeoutMs: number;
  ca?: string;
}

/** `reached`: a connection was attempted (false when the guard refused first). */
export interface PostResult {
  ok: boolean;
  status: number | null;
  /** A Retry-After the receiver sent with a 429 or 503, in ms. */
  retryAfterMs: number | null;
  /** What happened, in our own words (never the receiver's body). */
  reason: string;
  reached: boolean;
}

const ANSWER_BYTES = 4096;

export async function postBody(url: URL, body: string, headers: Record<string, string>, opts: PostOptions, now: () => Date): Promise<PostResult> {
  let connection: PinnedConnection | undefined;
  let reached = false;
  try {
    const pinned = await resolveAllowed(url, opts.allowPrivateNetworks, opts.allowVariable);
    reached = true;
    connection = new PinnedConnection(url, pinned, opts.ca === undefined ? {} : { ca: opts.ca });
    const res = await connection.fetch(url.href, { method: "POST", headers, body, signal: AbortSignal.timeout(opts.timeoutMs) });
    await drain(res);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, retryAfterMs: ok ? null : retryAfter(res.headers.get("retry-after"), now()), reason: ok ? `HTTP ${res.status}` : `the endpoint answered HTTP ${res.status}`, reached };
  } catch (e) {
    return { ok: false, status: null, retryAfterMs: null, reason: reasonOf(e, opts.timeoutMs), reached };
  } finally {
    connection?.close();
  }
}

/** Reads at most ANSWER_BYTES of the answer and drops them (a receiver's body is never kept). */
async function drain(res: Response): Promise<void> {
  const reader = res.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read < ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } catch {
    // The status is what counts; a broken body after it does not change the outcome.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** RFC 9110 §10.2.3: seconds or an HTTP date. */
function retryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

function reasonOf(e: unknown, timeoutMs: number): string {
  if (e instanceof OutboundRefused) return `refused: ${e.reason}`;
  if (e instanceof RedirectNotFollowedError) return `the endpoint answered HTTP ${e.status}; redirects are not followed`;
  const name = (e as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") return `the endpoint did not answer within ${timeoutMs} ms`;
  return "connection failed";
}
