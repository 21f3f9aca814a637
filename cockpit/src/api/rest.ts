// The admin REST paths the graph does not cover (sign-in, second factors, the workspace MFA rule,
// users): JSON on this origin, the admin JWT from memory, errors as ApiError with the server's
// `error` message and the rest of its body (mfa_ticket, factors, retry_after, failed...).
import { ApiError } from "./errors";

export async function rest<T>(method: string, path: string, opts: { token?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
    // The cockpit authenticates with its bearer token only (no cookie rides along).
    credentials: "omit",
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(`The server answered ${res.status} ${res.statusText}.`, "HTTP_ERROR", res.status);
  }
  if (!res.ok) {
    const { error, ...details } = body;
    const message = typeof error === "string" ? error : `The server answered ${res.status}.`;
    throw new ApiError(message, message === "mfa_required" ? "mfa_required" : `HTTP_${res.status}`, res.status, details);
  }
  return body as T;
}
