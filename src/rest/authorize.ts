// The authorization endpoint and its two form posts (server-rendered pages, no script).
//   GET  /oauth/authorize          validate the request, show the sign-in page
//   POST /oauth/authorize/login    check the password, show the consent page
//   POST /oauth/authorize/consent  allow or deny; redirect to the client with code|error, state, iss
import { Router, type Response } from "express";
import { z } from "zod";
import { authorizeQuerySchema, type SignInService, type SignInStep } from "../modules/signin";
import type { Logger } from "../shared/logger";
import { oauthFormBody } from "./oauth-form";
import { oauthErrorHandler } from "./oauth-errors";
import { rejectUnsafeInput } from "./input-hygiene";

// Pages must never be cached or framed (clickjacking of the consent button), and must not leak
// the request (with its state and code challenge) through the Referer header.
function send(res: Response, step: SignInStep): void {
  res.set({
    "Cache-Control": "no-store",
    Pragma: "no-cache",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
  });
  if (step.kind === "redirect") {
    res.redirect(302, step.location);
    return;
  }
  if (step.retryAfter !== undefined) res.set("Retry-After", String(step.retryAfter));
  res.status(step.status).type("html").send(step.html);
}

const loginForm = z.object({ ticket: z.string().max(8192).optional(), email: z.string().max(254).default(""), password: z.string().max(1024).default("") });
const consentForm = z.object({ ticket: z.string().max(8192).optional(), decision: z.string().max(16).optional() });

/** Query values must be single strings; repeated parameters are refused (RFC 6749 §3.1). */
function singleValued(query: Record<string, unknown>): Record<string, string | undefined> | null {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v) || (v !== undefined && typeof v !== "string")) return null;
    out[k] = v as string | undefined;
  }
  return out;
}

export function authorizeRouter(signIn: SignInService, logger: Logger): Router {
  const r = Router();
  // The pages' own form posts; a body or query the server cannot store is an OAuth invalid_request.
  r.use("/oauth/authorize", oauthFormBody(rejectUnsafeInput));
  r.get("/oauth/authorize", async (req, res) => {
    const single = singleValued(req.query as Record<string, unknown>);
    const parsed = single ? authorizeQuerySchema.safeParse(single) : null;
    if (!parsed?.success) {
      send(res, { kind: "page", status: 400, html: "<!doctype html><title>Bad request</title><p>Malformed authorization request.</p>" });
      return;
    }
    send(res, await signIn.start(parsed.data, { address: req.ip ?? "unknown" }));
  });
  r.post("/oauth/authorize/login", async (req, res) => {
    const form = loginForm.safeParse(req.body ?? {});
    if (!form.success) return send(res, { kind: "page", status: 400, html: "<!doctype html><title>Bad request</title><p>Malformed form.</p>" });
    send(res, await signIn.login(form.data.ticket, form.data.email, form.data.password, { address: req.ip ?? "unknown" }));
  });
  r.post("/oauth/authorize/consent", async (req, res) => {
    const form = consentForm.safeParse(req.body ?? {});
    if (!form.success) return send(res, { kind: "page", status: 400, html: "<!doctype html><title>Bad request</title><p>Malformed form.</p>" });
    send(res, await signIn.consent(form.data.ticket, form.data.decision));
  });
  r.use(oauthErrorHandler(logger));
  return r;
}
