// Domain errors. Services throw these; the REST and GraphQL adapters map them to the wire shapes
// fixed by the spec (admin REST: {error}). The OAuth endpoints' errors live in modules/oauth/errors.ts.

export type DomainErrorCode =
  | "bad_request" // 400
  | "unauthenticated" // 401
  | "forbidden" // 403
  | "not_found" // 404
  | "conflict" // 409
  | "payload_too_large" // 413
  | "too_many_requests" // 429
  | "upstream_failed" // 502
  | "unavailable"; // 503

const STATUS: Record<DomainErrorCode, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_requests: 429,
  upstream_failed: 502,
  unavailable: 503,
};

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Extra fields merged into the admin REST body, e.g. {failed: [...]} or {failure_reason}. */
    readonly details?: Record<string, unknown>,
    /** Internal: why, for the log with the request id (never sent, never a secret). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new DomainError("bad_request", message, details);
export const unauthenticated = (message: string) => new DomainError("unauthenticated", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const notFound = (what: string) => new DomainError("not_found", `${what} not found`);
/** A dependency (the database) cannot answer now: fail closed, the caller may retry. `cause` is logged, never sent. */
export const unavailable = (cause: unknown) => Object.assign(new DomainError("unavailable", "temporarily unavailable, try again shortly"), { cause });
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError("conflict", message, details);
