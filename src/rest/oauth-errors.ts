// The OAuth endpoints' error handler (token, introspection, revocation, and the authorization
// endpoint's form posts): RFC 6749 §5.2 {error, error_description} with Cache-Control: no-store.
// The public text comes from modules/oauth/errors.ts; the internal reason is logged with the
// request id and never sent, so an operator can tell why a grant failed and a prober cannot.
import type { ErrorRequestHandler, Request, Response } from "express";
import { OAuthError, invalidInput, oauthError, requestShapeError } from "../modules/oauth";
import { DomainError } from "../shared/errors";
import type { Logger } from "../shared/logger";
import { logReason, requestShapeFailure } from "./errors";

export function sendOAuthError(res: Response, e: OAuthError): void {
  res.set("Cache-Control", "no-store").set("Pragma", "no-cache");
  // RFC 6749 §5.2: a 401 invalid_client must carry a challenge for the scheme clients can use.
  if (e.status === 401) res.set("WWW-Authenticate", 'Basic realm="toolgate"');
  res.status(e.status).json({ error: e.error, error_description: e.description });
}

/** Any error of an OAuth route as the OAuthError to send. */
function asOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  if (err instanceof DomainError) {
    if (err.code === "unavailable") return oauthError("temporarily_unavailable", "the database could not be reached");
    if (err.code === "bad_request") return invalidInput(err.message);
    return undefined;
  }
  const shape = requestShapeFailure(err);
  return shape ? requestShapeError(shape.kind, shape.status, (err as Error).message) : undefined;
}

/** Told of every refusal an OAuth endpoint answers (the audit trail's counters, rest/oauth-refusals.ts); must not throw. */
export type OAuthRefusalSink = (req: Request, e: OAuthError) => void;

export function oauthErrorHandler(logger: Logger, onRefused?: OAuthRefusalSink): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    const requestId = res.locals.requestId as string | undefined;
    const e = asOAuthError(err);
    if (!e) {
      logger.error({ err, requestId, method: req.method, path: req.path }, "unhandled error");
      return sendOAuthError(res, oauthError("server_error"));
    }
    if (err instanceof DomainError && err.code === "unavailable") logger.warn({ err: err.cause, requestId, path: req.path }, "dependency unavailable; answered 503");
    else logReason(logger, requestId, e.error, e.reason);
    onRefused?.(req, e);
    sendOAuthError(res, e);
  };
}
