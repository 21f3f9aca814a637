// The authorization endpoint and its pages (server-rendered; one same-origin script, passkey.js).
//   GET  /oauth/authorize (+ /oauth2/authorize) validate, judge the session, show what the policy asks
//   POST /oauth/authorize/login           check the password
//   POST /oauth/authorize/second-factor   check an authenticator or recovery code
//   GET  /oauth/authorize/resume          go on after a passkey sign-in (the script navigates here)
//   POST /oauth/authorize/consent         allow or deny; redirect to the client with code|error, state, iss
//   GET  /oauth/authorize/passkey.js      the passkey button's script
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { authorizeQuerySchema, PASSKEY_SCRIPT, type SignInService, type SignInStep } from "../modules/signin";
import type { Logger } from "../shared/logger";
import { oauthFormBody } from "./oauth-form";
import { oauthErrorHandler } from "./oauth-errors";
import { rejectUnsafeInput } from "./input-hygiene";
import { readSessionCookie, writeSessionCookie, type CookieSettings } from "./session-cookie";

/**
 * Pages must never be cached or framed, must not leak the request through Referer, and run only our
 * own script. No `form-action`: browsers check it against where a form submission is redirected too
 * (CSP Level 3 §6.4.1; Chromium enforces it), and these forms end at the client's redirect URI or
 * the upstream identity provider, on other origins (decision 0043).
 */
export const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  Pragma: "no-cache",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; script-src 'self'; connect-src 'self'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};

/** The decision and the sign-in event of a step go to the log (never a secret: ids and reason strings). */
function logStep(logger: Logger, res: Response, step: SignInStep): void {
  if (step.decision || step.event) logger.info({ requestId: res.locals.requestId, prompt: step.decision, sign_in: step.event }, "sign-in step");
}

export function sendStep(res: Response, step: SignInStep, cookies: CookieSettings, logger: Logger): void {
  res.set(PAGE_HEADERS);
  writeSessionCookie(res, cookies, step.cookie);
  logStep(logger, res, step);
  if (step.kind === "redirect") {
    res.redirect(302, step.location);
    return;
  }
  if (step.kind === "json") {
    res.status(step.status).json(step.body);
    return;
  }
  if (step.retryAfter !== undefined) res.set("Retry-After", String(step.retryAfter));
  res.status(step.status).type("html").send(step.html);
}

const loginForm = z.object({ ticket: z.string().max(8192).optional(), email: z.string().max(254).default(""), password: z.string().max(1024).default("") });
const codeForm = z.object({ ticket: z.string().max(8192).optional(), code: z.string().max(64).default("") });
const consentForm = z.object({ ticket: z.string().max(8192).optional(), decision: z.string().max(16).optional() });

/** Query values must be single strings; repeated parameters are refused (RFC 6749 §3.1). */
export function singleValued(query: Record<string, unknown>): Record<string, string | undefined> | null {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v) || (v !== undefined && typeof v !== "string")) return null;
    out[k] = v as string | undefined;
  }
  return out;
}

const malformed = (what: string): SignInStep => ({ kind: "page", status: 400, html: `<!doctype html><title>Bad request</title><p>Malformed ${what}.</p>` });

export function authorizeRouter(signIn: SignInService, cookies: CookieSettings, logger: Logger): Router {
  const r = Router();
  const send = (res: Response, step: SignInStep) => sendStep(res, step, cookies, logger);
  const cookie = (req: Request) => readSessionCookie(req, cookies);
  const source = (req: Request) => ({ address: req.ip ?? "unknown" });
  // The pages' own form posts; a body or query the server cannot store is an OAuth invalid_request.
  r.use(["/oauth/authorize", "/oauth2/authorize"], oauthFormBody(rejectUnsafeInput));
  r.get(["/oauth/authorize", "/oauth2/authorize"], async (req, res) => {
    const single = singleValued(req.query as Record<string, unknown>);
    const parsed = single ? authorizeQuerySchema.safeParse(single) : null;
    if (!parsed?.success) return send(res, malformed("authorization request"));
    send(res, await signIn.start(parsed.data, source(req), cookie(req)));
  });
  r.get("/oauth/authorize/passkey.js", (_req, res) => {
    res.set({ "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" }).type("text/javascript").send(PASSKEY_SCRIPT);
  });
  r.get("/oauth/authorize/resume", async (req, res) => {
    const ticket = typeof req.query.ticket === "string" ? req.query.ticket : undefined;
    send(res, await signIn.resume(ticket, cookie(req)));
  });
  r.post("/oauth/authorize/login", async (req, res) => {
    const form = loginForm.safeParse(req.body ?? {});
    if (!form.success) return send(res, malformed("form"));
    send(res, await signIn.login(form.data.ticket, form.data.email, form.data.password, source(req), cookie(req)));
  });
  r.post("/oauth/authorize/second-factor", async (req, res) => {
    const form = codeForm.safeParse(req.body ?? {});
    if (!form.success) return send(res, malformed("form"));
    send(res, await signIn.secondFactor(form.data.ticket, form.data.code, source(req), cookie(req)));
  });
  r.post("/oauth/authorize/consent", async (req, res) => {
    const form = consentForm.safeParse(req.body ?? {});
    if (!form.success) return send(res, malformed("form"));
    send(res, await signIn.consent(form.data.ticket, form.data.decision));
  });
  r.use(oauthErrorHandler(logger));
  return r;
}
