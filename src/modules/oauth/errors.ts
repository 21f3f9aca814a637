// The OAuth error model (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 7662 §2.3, RFC 8707 §2). An OAuthError
// has a public part, the code and the one description of its failure class, fixed here and nowhere
// else, so the text never tells a prober which check failed; and an internal `reason`, which the
// OAuth endpoints' error handler logs with the request id and never sends (rest/oauth-errors.ts).

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "unsupported_token_type"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable";

export const OAUTH_ERROR_DESCRIPTIONS: Record<OAuthErrorCode, string> = {
  invalid_request: "the request is missing a required parameter, repeats a parameter, or is otherwise malformed",
  invalid_client: "client authentication failed",
  invalid_grant: "the authorization grant is invalid, expired, revoked, or was issued to another client",
  unauthorized_client: "the client is not allowed to use this grant type",
  unsupported_grant_type: "the grant type is not supported by this authorization server",
  invalid_scope: "the requested scope is invalid, unknown, or not allowed for this client",
  invalid_target: "the requested resource is invalid, unknown, or not available to this client",
  unsupported_token_type: "the token type is not supported",
  access_denied: "access denied",
  server_error: "internal error",
  temporarily_unavailable: "the authorization server cannot answer right now; try again shortly",
};

/** Status per code: 401 for invalid_client (RFC 6749 §5.2), 503 when we cannot answer, 400 otherwise. */
const STATUS: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401, server_error: 500, temporarily_unavailable: 503 };

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    /** Public: one description per failure class. */
    readonly description: string,
    readonly status: number = STATUS[error] ?? 400,
    /** Internal: why this request failed, for the log (never sent, never a secret). */
    readonly reason?: string,
  ) {
    super(`${error}: ${reason ?? description}`);
    this.name = "OAuthError";
  }
}

/** The OAuthError for `code` with its one public description; `reason` goes to the log only. */
export function oauthError(code: OAuthErrorCode, reason?: string): OAuthError {
  return new OAuthError(code, OAUTH_ERROR_DESCRIPTIONS[code], STATUS[code] ?? 400, reason);
}

/**
 * Requests refused before any OAuth logic, for their shape (HTTP layer): invalid_request with a
 * description of what was wrong with the request as a whole, which reveals nothing about clients
 * or tokens.
 */
export const REQUEST_SHAPE_ERRORS = {
  too_large: { status: 413, description: "request body too large" },
  malformed_body: { status: 400, description: "malformed request body" },
  malformed: { status: 400, description: "malformed request" },
  unsupported_media_type: { status: 415, description: "unsupported content type or charset" },
} as const;

export function requestShapeError(kind: keyof typeof REQUEST_SHAPE_ERRORS, status?: number, reason?: string): OAuthError {
  const shape = REQUEST_SHAPE_ERRORS[kind];
  return new OAuthError("invalid_request", shape.description, status ?? shape.status, reason);
}

/** Input refused by validation (bad_request): invalid_request carrying the validation message. */
export function invalidInput(message: string): OAuthError {
  return new OAuthError("invalid_request", message, 400, message);
}
