// One client_credentials token request (RFC 6749 §4.4, RFC 8707 `resource`), retried when the
// failure is worth retrying: a network error, 429 or 5xx. The wait is exponential with "equal
// jitter" (half of it fixed, half random, so many agents failing together do not retry together)
// and never shorter than a Retry-After the server sent (RFC 9110 §10.2.3), within a cap. An OAuth
// refusal (400 invalid_scope, 401 invalid_client, ...) is final: TokenRequestError with its code.

export interface RetryOptions {
  /** Attempts in all (default 5). */
  attempts: number;
  /** The first wait (default 200 ms); it doubles per attempt. */
  baseMs: number;
  /** The longest wait, Retry-After included (default 30 s). */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 5, baseMs: 200, maxMs: 30_000 };

export interface TokenSet {
  accessToken: string;
  tokenType: string;
  /** Granted scopes (the request's when the answer names none, RFC 6749 §5.1). */
  scopes: string[];
  /** When it expires (ms since the epoch, by the agent's clock). */
  expiresAt: number;
  expiresIn: number;
}

export class TokenRequestError extends Error {
  constructor(
    /** The OAuth error code (`invalid_client`, `invalid_scope`, ...), or `network_error` / `server_error`. */
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number | undefined,
  ) {
    super(`token request failed: ${error}${description ? ` (${description})` : ""}${status ? ` [HTTP ${status}]` : ""}`);
    this.name = "TokenRequestError";
  }
}

export interface TokenRequest {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  resource: string;
  scopes: readonly string[];
}

export interface Transport {
  fetch: typeof fetch;
  now: () => number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  retry: RetryOptions;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffMs(retry: RetryOptions, attempt: number, random: number, retryAfterMs: number | undefined): number {
  const exponential = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = exponential / 2 + random * (exponential / 2);
  return Math.round(Math.min(retry.maxMs, Math.max(jittered, retryAfterMs ?? 0)));
}

function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** client_secret_basic (RFC 6749 §2.3.1): both parts form-urlencoded, then base64. */
function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${btoa(`${enc(id)}:${enc(secret)}`)}`;
}

export async function requestToken(req: TokenRequest, t: Transport): Promise<TokenSet> {
  const body = new URLSearchParams({ grant_type: "client_credentials", resource: req.resource });
  if (req.scopes.length > 0) body.set("scope", req.scopes.join(" "));
  for (let attempt = 1; ; attempt++) {
    let wait: number | undefined;
    let failure: TokenRequestError;
    try {
      const res = await t.fetch(req.tokenEndpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", authorization: basic(req.clientId, req.clientSecret) },
        body,
      });
      const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (res.ok && typeof json.access_token === "string") {
        const expiresIn = typeof json.expires_in === "number" ? json.expires_in : 300;
        const scopes = typeof json.scope === "string" ? json.scope.split(" ").filter(Boolean) : [...req.scopes];
        return { accessToken: json.access_token, tokenType: String(json.token_type ?? "Bearer"), scopes, expiresIn, expiresAt: t.now() + expiresIn * 1000 };
      }
      const code = typeof json.error === "string" ? json.error : res.ok ? "invalid_response" : "server_error";
      failure = new TokenRequestError(code, typeof json.error_description === "string" ? json.error_description : undefined, res.status);
      if (res.status !== 429 && res.status < 500) throw failure; // the server said no: final
      wait = retryAfterMs(res.headers.get("retry-after"), t.now());
    } catch (e) {
      if (e instanceof TokenRequestError && e.status !== undefined && e.status !== 429 && e.status < 500) throw e;
      failure = e instanceof TokenRequestError ? e : new TokenRequestError("network_error", (e as Error).message, undefined);
    }
    if (attempt >= t.retry.attempts) throw failure;
    await t.sleep(backoffMs(t.retry, attempt, t.random(), wait));
  }
}
