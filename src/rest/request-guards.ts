// Guards that answer before authentication and before any body is parsed:
// - an unknown path under an authenticated prefix is 404, not 401 "missing bearer token" (a typo
//   in a URL must not read as a credentials problem);
// - a body sent with the wrong content type is 415 naming the type to send (RFC 9110 §15.5.16),
//   instead of the field errors of an empty parse ("email: is required"). The OAuth endpoints say
//   the same in the OAuth shape from their own form parsing (rest/oauth.ts), without a layer here.
import type { Request, RequestHandler, Response, Router } from "express";

interface RouterLayer {
  route?: unknown;
  match(path: string): unknown;
}

/**
 * Under `prefixes`: 404 `{error: "not found"}` unless one of `routers` has a route for the path
 * (any method). Every router serving those prefixes after this guard must be in `routers`.
 */
export function notFoundUnlessRouted(prefixes: readonly string[], routers: readonly Router[]): RequestHandler {
  const layers = routers.flatMap((r) => (r as unknown as { stack: RouterLayer[] }).stack.filter((l) => l.route));
  const guarded = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  return (req, res, next) => {
    if (!guarded(req.path) || layers.some((l) => l.match(req.path))) return next();
    res.status(404).json({ error: "not found" });
  };
}

/** RFC 9110 §8.6/§6.4.1: a request carries content when it has a non-zero length or is chunked. */
export function hasBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

function got(req: Request): string {
  return req.headers["content-type"]?.split(";")[0]?.trim() || "none";
}

/** What a 415 says: the type to send, and the one that came. */
export function wrongBodyType(req: Request, type: string): string {
  return `send the body as ${type} (content-type: ${type}); got ${got(req)}`;
}

/** 415 for a body that is not `type`; `send` writes the answer in the surface's error shape. */
function requireBodyType(type: string, send: (res: Response, description: string) => void): RequestHandler {
  return (req, res, next) => {
    if (!hasBody(req) || req.is(type)) return next();
    send(res, wrongBodyType(req, type));
  };
}

/** Admin routes: JSON bodies, errors as {error}. */
export const requireJsonBody = requireBodyType("application/json", (res, description) => {
  res.status(415).json({ error: description });
});

