// The admin surface's error handler (every router but the OAuth endpoints, which install
// rest/oauth-errors.ts). Wire shape fixed by the spec: {"error": "<message>"} (+ documented
// details such as `failed` or `failure_reason`). Anything unexpected: 500 with a generic message;
// the detail goes to the log with the request id.
import type { ErrorRequestHandler } from "express";
import { DomainError } from "../shared/errors";
import type { Logger } from "../shared/logger";

/** How the HTTP layer (body parsers, URL decoding) refused a request, if it did. */
export type RequestShapeFailure = "too_large" | "malformed_body" | "malformed" | "unsupported_media_type";

export function requestShapeFailure(err: unknown): { kind: RequestShapeFailure; status: number } | undefined {
  const { status, type } = err as { status?: number; type?: string };
  if (status === 413 || type === "entity.too.large") return { kind: "too_large", status: 413 };
  if (status === 400 && (type === "entity.parse.failed" || type === "encoding.unsupported" || type === "charset.unsupported")) return { kind: "malformed_body", status: 400 };
  if (status === 415) return { kind: "unsupported_media_type", status: 415 };
  // Anything else the HTTP layer refused as the client's fault (e.g. a path parameter with a
  // malformed percent-encoding: Express answers URIError with status 400).
  if (typeof status === "number" && status >= 400 && status < 500) return { kind: "malformed", status };
  return undefined;
}

const ADMIN_SHAPE_MESSAGES: Record<RequestShapeFailure, string> = {
  too_large: "request body too large",
  malformed_body: "request body is not valid JSON",
  malformed: "malformed request",
  unsupported_media_type: "unsupported content type",
};

/** Logs a refused request's internal reason (when it has one) with the request id. */
export function logReason(logger: Logger, requestId: unknown, code: string, reason: string | undefined, cause?: unknown): void {
  if (reason === undefined && cause === undefined) return;
  logger.info({ requestId, error: code, reason, ...(cause ? { err: cause } : {}) }, "request refused");
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    const requestId = res.locals.requestId as string | undefined;
    if (err instanceof DomainError) {
      if (err.code === "unavailable") logger.warn({ err: err.cause, requestId, method: req.method, path: req.path }, "dependency unavailable; answered 503");
      else logReason(logger, requestId, err.code, err.reason);
      if (err.code === "too_many_requests" && typeof err.details?.retry_after === "number") res.set("Retry-After", String(err.details.retry_after));
      res.status(err.status).json({ error: err.message, ...(err.details ?? {}) });
      return;
    }
    const shape = requestShapeFailure(err);
    if (shape) {
      res.status(shape.status).json({ error: ADMIN_SHAPE_MESSAGES[shape.kind] });
      return;
    }
    logger.error({ err, requestId, method: req.method, path: req.path }, "unhandled error");
    res.status(500).json({ error: "internal error", request_id: requestId });
  };
}
