// When a failed delivery is tried again (docs/audit-and-integrations.md "Retries"): exponential
// backoff from TOOLGATE_WEBHOOK_RETRY_BASE_MS, doubling per attempt up to RETRY_MAX_MS, with "equal
// jitter" (half the delay fixed, half random) so endpoints that failed together are not retried
// together; a Retry-After the endpoint sent (429, 503) is honoured when it asks for longer. After
// MAX_ATTEMPTS the delivery is dead (the dead-letter list) until someone redelivers it.
export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
}

/** The delay after failed attempt number `attempt` (1 for the first), `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: number, retryAfterMs: number | null): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = exponential / 2 + random * (exponential / 2);
  return Math.round(retryAfterMs === null ? jittered : Math.min(policy.maxMs, Math.max(jittered, retryAfterMs)));
}

/** Circuit breaking per endpoint: after this many failures in a row, no attempt for CIRCUIT_OPEN_MS; then one probe. */
export const CIRCUIT_FAILURES = 5;
export const CIRCUIT_OPEN_MS = 60_000;
