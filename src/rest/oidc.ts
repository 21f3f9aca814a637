// OpenID Connect endpoints besides the authorization endpoint:
//   GET, POST /userinfo (+ /oauth2/userinfo)     OIDC Core §5.3, bearer token (header, or access_token in a POST form)
//   GET, POST /oauth/logout (+ /oauth2/logout)   end_session_endpoint (OpenID RP-Initiated Logout 1.0)
//   POST      /oauth/logout/confirm              the confirmation page's form
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { UserInfoEndpoint } from "../modules/oauth";
import type { LogoutService, LogoutStep } from "../modules/signin";
import type { Logger } from "../shared/logger";
import { bearerToken } from "../modules/tenancy";
import { oauthFormBody } from "./oauth-form";
import { oauthErrorHandler } from "./oauth-errors";
import { rejectUnsafeInput } from "./input-hygiene";
import { publicCors } from "./public-cors";
import { PAGE_HEADERS, singleValued } from "./authorize";
import { readSessionCookie, writeSessionCookie, type CookieSettings } from "./session-cookie";

export const USERINFO_PATHS = ["/userinfo", "/oauth2/userinfo"];
export const LOGOUT_PATHS = ["/oauth/logout", "/oauth2/logout"];

const logoutParams = z.object({
  id_token_hint: z.string().max(8192).optional(),
  client_id: z.string().max(2048).optional(),
  post_logout_redirect_uri: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
  logout_hint: z.string().max(254).optional(),
  ui_locales: z.string().max(256).optional(),
});
const confirmForm = z.object({ ticket: z.string().max(8192).optional(), decision: z.string().max(16).optional() });

/** Every token the request carries: the Authorization header's, and a POST form's access_token (RFC 6750 §2.1, §2.2). */
function tokensOf(req: Request): string[] | null {
  const tokens: string[] = [];
  if (req.headers.authorization !== undefined) {
    const t = bearerToken(req.headers.authorization);
    if (!t) return null;
    tokens.push(t);
  }
  const body = req.body as Record<string, unknown> | undefined;
  if (body && body.access_token !== undefined) {
    if (typeof body.access_token !== "string") return null;
    tokens.push(body.access_token);
  }
  return tokens;
}

export function oidcRouter(userinfo: UserInfoEndpoint, logout: LogoutService, cookies: CookieSettings, logger: Logger): Router {
  const r = Router();
  const form = oauthFormBody(rejectUnsafeInput);
  const cors = publicCors("GET, POST, OPTIONS", "Authorization, Content-Type");
  const answerUserinfo = async (req: Request, res: Response) => {
    res.set({ "Cache-Control": "no-store", Pragma: "no-cache" });
    const tokens = tokensOf(req);
    const a = await userinfo.answer(tokens ?? "malformed");
    if ("challenge" in a) res.set("WWW-Authenticate", a.challenge);
    res.status(a.status).json(a.body);
  };
  for (const path of USERINFO_PATHS) {
    r.options(path, cors);
    r.get(path, cors, answerUserinfo);
    r.post(path, cors, form, answerUserinfo);
  }

  const sendLogout = (res: Response, step: LogoutStep) => {
    res.set(PAGE_HEADERS);
    writeSessionCookie(res, cookies, step.cookie);
    if (step.endedSessionId) logger.info({ requestId: res.locals.requestId, session_ended: step.endedSessionId }, "signed out");
    if (step.kind === "redirect") return res.redirect(302, step.location);
    res.status(step.status).type("html").send(step.html);
  };
  const bad = (res: Response) => res.status(400).set(PAGE_HEADERS).type("html").send("<!doctype html><title>Bad request</title><p>Malformed logout request.</p>");
  const handleLogout = async (req: Request, res: Response) => {
    const raw = req.method === "POST" ? (req.body ?? {}) : singleValued(req.query as Record<string, unknown>);
    const parsed = raw ? logoutParams.safeParse(raw) : null;
    if (!parsed?.success) return bad(res);
    sendLogout(res, await logout.request(parsed.data, readSessionCookie(req, cookies)));
  };
  for (const path of LOGOUT_PATHS) {
    r.get(path, handleLogout);
    r.post(path, form, handleLogout);
  }
  r.post("/oauth/logout/confirm", form, async (req, res) => {
    const parsed = confirmForm.safeParse(req.body ?? {});
    if (!parsed.success) return bad(res);
    sendLogout(res, await logout.confirm(parsed.data.ticket, parsed.data.decision, readSessionCookie(req, cookies)));
  });
  r.use(oauthErrorHandler(logger));
  return r;
}
