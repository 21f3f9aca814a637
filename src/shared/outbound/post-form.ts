// One form POST whose JSON answer we need (an upstream OpenID provider's token endpoint), under the
// same guard as every outbound request (resolve.ts, pinned-fetch.ts): the host is resolved and
// checked, the connection is pinned to the checked addresses, redirects are not followed, at most
// maxBytes of the answer are read, within a deadline. Any status is returned with its parsed JSON
// (an OAuth error answer is JSON too); `reason` says what went wrong in our own words.
import { BudgetExceededError, ByteBudget, boundedFetch } from "./bounded-fetch";
import type { OutboundFetchOptions } from "./fetch-json";
import { PinnedConnection, RedirectNotFollowedError } from "./pinned-fetch";
import { OutboundRefused, resolveAllowed } from "./resolve";

export type PostedForm = { ok: true; status: number; json: unknown } | { ok: false; reason: string };

export async function postFormForJson(url: URL, form: URLSearchParams, headers: Record<string, string>, opts: OutboundFetchOptions, limits: { maxBytes: number; what: string }): Promise<PostedForm> {
  const { what } = limits;
  let connection: PinnedConnection | undefined;
  try {
    const pinned = await resolveAllowed(url, opts.allowPrivateNetworks);
    connection = new PinnedConnection(url, pinned, opts.ca === undefined ? {} : { ca: opts.ca });
    const fetcher = boundedFetch(new ByteBudget(limits.maxBytes), AbortSignal.timeout(opts.timeoutMs), connection.fetch);
    const res = await fetcher(url.href, {
      method: "POST",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    });
    const text = await res.text();
    try {
      return { ok: true, status: res.status, json: JSON.parse(text) };
    } catch {
      return { ok: false, reason: `${what} answered HTTP ${res.status} with a body that is not JSON` };
    }
  } catch (e) {
    if (e instanceof OutboundRefused) return { ok: false, reason: `${what} cannot be reached: ${e.reason}` };
    if (e instanceof RedirectNotFollowedError) return { ok: false, reason: `${what} answered HTTP ${e.status}; redirects are not followed` };
    if (e instanceof BudgetExceededError || (e as { cause?: unknown })?.cause instanceof BudgetExceededError) return { ok: false, reason: `${what} answered more than ${limits.maxBytes} bytes` };
    const name = (e as { name?: string })?.name;
    if (name === "TimeoutError" || name === "AbortError") return { ok: false, reason: `${what} did not answer within ${opts.timeoutMs} ms` };
    return { ok: false, reason: `${what} cannot be reached: connection failed` };
  } finally {
    connection?.close();
  }
}
