// Maps errors to the wire shapes the spec fixes. Admin REST: {"error": "<message>"} (+ documented
// details such as `failed` or `failure_reason`). OAuth: RFC 6749 §5.2 {error, error_description}
// with Cache-Control: no-store. Anything unexpected: 500 with a generic message; the detail goes
// to the log with the request id.
import type { ErrorRequestHandler, Response } from "express";
import { DomainError, OAuthError } from "../shared/errors";
import type { Logger } from "../shared/logger";
import { OAUTH_ERROR_DESCRIPTIONS } from "../modules/oauth/errors";

const OAUTH_UNAVAILABLE = OAUTH_ERROR_DESCRIPTIONS.temporarily_unavailable;

export function sendOAuthError(res: Response, e: OAuthError): void {
  res.set("Cache-Control", "no-store").set("Pragma", "no-cache");
  // RFC 6749 §5.2: a 401 invalid_client must carry a challenge for the scheme clients can use.
  if (e.status === 401) res.set("WWW-Authenticate", 'Basic realm="toolgate"');
  res.status(e.status).json({ error: e.error, error_description: e.description });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof OAuthError) return sendOAuthError(res, err);
    if (err instanceof DomainError) {
      if (err.code === "unavailable") {
        logger.warn({ err: err.cause, requestId: res.locals.requestId, method: req.method, path: req.path }, "dependency unavailable; answered 503");
        if (req.path.startsWith("/oauth/")) return sendOAuthError(res, new OAuthError("temporarily_unavailable", OAUTH_UNAVAILABLE));
      }
      if (req.path.startsWith("/oauth/") && err.code === "bad_request") return sendOAuthError(res, new OAuthError("invalid_request", err.message));
      if (err.code === "too_many_requests" && typeof err.details?.retry_after === "number") res.set("Retry-After", String(err.details.retry_after));
      res.status(err.status).json({ error: err.message, ...(err.details ?? {}) });
      return;
    }
    const status = (err as { status?: number; type?: string }).status;
    const type = (err as { type?: string }).type;
    const isOAuthPath = req.path.startsWith("/oauth/");
    // Body-parser failures: too large, unparsable, unsupported charset.
    if (status === 413 || type === "entity.too.large") {
      if (isOAuthPath) return sendOAuthError(res, new OAuthError("invalid_request", "request body too large", 413));
      res.status(413).json({ error: "request body too large" });
      return;
    }
    if (status === 400 && (type === "entity.parse.failed" || type === "encoding.unsupported" || type === "charset.unsupported")) {
      if (isOAuthPath) return sendOAuthError(res, new OAuthError("invalid_request", "malformed request body"));
      res.status(400).json({ error: "request body is not valid JSON" });
      return;
    }
    // Anything else the HTTP layer refused as the client's fault (e.g. a path parameter with a
    // malformed percent-encoding: Express answers URIError with status 400).
    if (typeof status === "number" && status >= 400 && status < 500 && status !== 415) {
      if (isOAuthPath) return sendOAuthError(res, new OAuthError("invalid_request", "malformed request", status));
      res.status(status).json({ error: "malformed request" });
      return;
    }
    if (status === 415) {
      if (isOAuthPath) return sendOAuthError(res, new OAuthError("invalid_request", "unsupported content type or charset", 415));
      res.status(415).json({ error: "unsupported content type" });
      return;
    }
    const requestId = res.locals.requestId as string | undefined;
    logger.error({ err, requestId, method: req.method, path: req.path }, "unhandled error");
    if (isOAuthPath) return sendOAuthError(res, new OAuthError("server_error", "internal error", 500));
    res.status(500).json({ error: "internal error", request_id: requestId });
  };
}
