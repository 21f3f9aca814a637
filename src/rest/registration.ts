// Dynamic client registration (RFC 7591) at POST /oauth/register and its management (RFC 7592) at
// GET/PUT/DELETE /oauth/register/:client_id. Thin: limits, parse JSON, call RegistrationService,
// answer. Its own router with its own JSON parser and error handler, so every failure answers in
// the RFC 7591 §3.2.2 shape {error, error_description}:
//   400 invalid_client_metadata / invalid_redirect_uri (the description names the field),
//   401 invalid_token (RFC 7592: unknown client or wrong registration access token, alike),
//   413 body too large, 429 too many registrations from this address (Retry-After).
// Unauthenticated and open to browsers (CORS without credentials): MCP clients register with no
// initial access token (RFC 7591 §3 allows open registration; MCP clients such as Cursor fail on a
// 401 there); the per-address limit, shared by every instance
// (modules/clients/address-limits.ts), replaces authentication.
import express, { Router, type ErrorRequestHandler, type Request, type Response } from "express";
import { RegistrationAccessDenied, RegistrationError, type AddressRateLimit, type RegistrationService } from "../modules/clients";
import { UNSTORABLE_TEXT, describeUnsafeInput, findUnsafeInput, unsafeText } from "../shared/input-safety";
import type { Logger } from "../shared/logger";
import { NO_STORE, sendJson } from "./oauth-response";
import { publicCors } from "./public-cors";

export const REGISTRATION_PATH = "/oauth/register";
/** Client metadata is small (20 redirect URIs of 2 KB at most, a few short strings). */
export const REGISTRATION_BODY_LIMIT = "64kb";

/** Rate-limit counters next to the service's own (a metrics endpoint reads both). */
export interface RegistrationHttpStats {
  rateLimited: number;
  tooLarge: number;
}

function error(res: Response, status: number, code: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, { error: code, error_description: description }, { ...NO_STORE, ...headers }, status);
}

/** RFC 7592 §2.1: an unknown client and a wrong registration access token answer alike. */
function denied(res: Response): void {
  error(res, 401, "invalid_token", "the registration access token is invalid, or the client is not registered", { "WWW-Authenticate": 'Bearer error="invalid_token"' });
}

const cors = publicCors("POST, GET, PUT, DELETE, OPTIONS", "Content-Type, Authorization, MCP-Protocol-Version");

/** RFC 6750 §2.1 bearer token of an RFC 7592 request, or undefined. */
function bearer(req: Request): string | undefined {
  const m = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/.exec(req.headers.authorization ?? "");
  return m?.[1];
}

/** The :client_id of an RFC 7592 path; one no database could hold (NUL, lone surrogates, huge) names no client. */
function clientIdParam(req: Request): string {
  const id = String(req.params.client_id);
  if (id.length > 2048 || unsafeText(id)) throw new RegistrationAccessDenied();
  return id;
}

/** The JSON body, refused when it is not JSON or holds text the database cannot store. */
function jsonBody(req: Request): unknown {
  if (!req.is("application/json")) throw new RegistrationError("invalid_client_metadata", "body: must be application/json (RFC 7591 §3.1)");
  const unsafe = findUnsafeInput(req.body);
  if (!unsafe) return req.body;
  // RFC 7591 §3.2.2: whatever is wrong with a redirect URI, the error is invalid_redirect_uri.
  const [field, index, ...deeper] = unsafe.path;
  if (field === "redirect_uris" && typeof index === "number" && deeper.length === 0 && unsafe.kind !== "depth") {
    throw new RegistrationError("invalid_redirect_uri", `redirect_uris[${index}]: ${UNSTORABLE_TEXT}`);
  }
  throw new RegistrationError("invalid_client_metadata", describeUnsafeInput(unsafe, { whole: "body" }));
}

/** Why a body could not be read (body-parser's 400s): a corrupt compressed body names its encoding. */
function unreadableBody(req: Request, err: unknown): string {
  const encoding = req.headers["content-encoding"];
  const zlib = /^Z_/.test(String((err as { code?: unknown }).code));
  return zlib && encoding ? `body: not valid ${encoding} data (Content-Encoding)` : "body: could not be read";
}

/** Told of every refused registration (the audit trail's counters): the error code and its description. */
export type RegistrationRefusalSink = (req: Request, reason: string) => void;

/** `limit`: registrations per client address (TOOLGATE_REGISTRATION_RATE_LIMIT per TOOLGATE_REGISTRATION_RATE_WINDOW_SECONDS). */
export function registrationRouter(
  service: RegistrationService,
  limit: AddressRateLimit,
  logger: Logger,
  onRefused: RegistrationRefusalSink = () => undefined,
): { router: Router; stats: RegistrationHttpStats } {
  const stats: RegistrationHttpStats = { rateLimited: 0, tooLarge: 0 };
  const r = Router();
  const paths = [REGISTRATION_PATH, `${REGISTRATION_PATH}/:client_id`];
  r.use(paths, cors);
  // Before the body is read: a flood costs no parsing.
  r.post(REGISTRATION_PATH, async (req, res, next) => {
    const wait = await limit.take(req.ip);
    if (wait === 0) return next();
    stats.rateLimited++;
    onRefused(req, "too_many_requests");
    error(res, 429, "too_many_requests", "too many registrations from this address; try again later", { "Retry-After": String(wait) });
  });
  r.use(paths, express.json({ limit: REGISTRATION_BODY_LIMIT, strict: false }));
  r.post(REGISTRATION_PATH, async (req, res) => {
    sendJson(res, await service.register(jsonBody(req)), NO_STORE, 201);
  });
  r.get(`${REGISTRATION_PATH}/:client_id`, async (req, res) => {
    sendJson(res, await service.get(clientIdParam(req), bearer(req) ?? ""));
  });
  r.put(`${REGISTRATION_PATH}/:client_id`, async (req, res) => {
    const token = bearer(req) ?? "";
    sendJson(res, await service.update(clientIdParam(req), token, jsonBody(req)));
  });
  r.delete(`${REGISTRATION_PATH}/:client_id`, async (req, res) => {
    await service.remove(clientIdParam(req), bearer(req) ?? "");
    res.status(204).end();
  });
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof RegistrationError) {
      if (req.method === "POST") onRefused(req, `${err.error}: ${err.description}`);
      return error(res, 400, err.error, err.description);
    }
    if (err instanceof RegistrationAccessDenied) return denied(res);
    const type = (err as { type?: string }).type;
    if (type === "entity.too.large") {
      stats.tooLarge++;
      return error(res, 413, "invalid_client_metadata", `body: larger than ${REGISTRATION_BODY_LIMIT}`);
    }
    if (type === "entity.parse.failed" || type === "encoding.unsupported" || type === "charset.unsupported") {
      return error(res, 400, "invalid_client_metadata", "body: not valid JSON");
    }
    // A :client_id that is not valid percent-encoded UTF-8 names no client: the same 401 as an unknown one.
    if (err instanceof URIError) return denied(res);
    // Any other 400 comes from reading the body (a corrupt gzip or deflate body, a body cut short).
    if ((err as { status?: number }).status === 400) return error(res, 400, "invalid_client_metadata", unreadableBody(req, err));
    logger.error({ err, requestId: res.locals.requestId, path: req.path }, "unhandled error");
    const unavailable = (err as { code?: string }).code === "unavailable";
    error(res, unavailable ? 503 : 500, unavailable ? "temporarily_unavailable" : "server_error", unavailable ? "the authorization server cannot answer right now; try again shortly" : "internal error");
  };
  r.use(paths, onError);
  return { router: r, stats };
}
