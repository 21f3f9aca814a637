// The login proxy of upstream identity providers (unauthenticated: it is how one signs in):
//   GET /svc/hmgr/login?provider=<id>&ticket=<sign-in page ticket>[&login_hint=<email>]
//   GET /svc/hmgr/callback?code=...&state=...   (or error=...&state=...)
// The flow cookie (state, nonce, PKCE verifier, the pending authorization) is MAC'd by the module;
// here it is HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET, which Lax
// lets through), Path=/, Secure and __Host- on https, 10 minutes, cleared by the callback.
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { FederationService, FederationStep } from "../modules/identity-providers";
import type { Logger } from "../shared/logger";
import { sendStep, singleValued } from "./authorize";
import { readSessionCookie, type CookieSettings } from "./session-cookie";
import { noticePage } from "../modules/signin";
import { unauthenticated } from "../shared/errors";
import { parseWith } from "./validation";

const loginQuery = z.object({
  provider: z.string().uuid().optional(),
  ticket: z.string().max(8192).optional(),
  login_hint: z.string().max(254).optional(),
  // Admin SSO into the cockpit (no pending authorization): for=admin&workspace_id=<ws>.
  for: z.enum(["admin"]).optional(),
  workspace_id: z.string().uuid().optional(),
});
const ssoBody = z.object({ ticket: z.string().min(1).max(4096) }).strict();
const callbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(128).optional(),
  error_description: z.string().max(1024).optional(),
  iss: z.string().max(2000).optional(),
  session_state: z.string().max(1024).optional(),
});

export function flowCookieName(cookies: CookieSettings): string {
  return cookies.secure ? "__Host-toolgate_federation" : "toolgate_federation";
}

function readFlowCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value.length <= 12_000 && /^[A-Za-z0-9_.-]+$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function loginProxyRouter(federation: FederationService, cookies: CookieSettings, logger: Logger): Router {
  const r = Router();
  const name = flowCookieName(cookies);
  const send = (res: Response, step: FederationStep) => {
    if (step.flow) {
      const attributes = ["Path=/", "HttpOnly", "SameSite=Lax", ...(cookies.secure ? ["Secure"] : [])];
      const value = "clear" in step.flow ? [`${name}=`, "Max-Age=0"] : [`${name}=${step.flow.value}`, `Max-Age=${step.flow.maxAgeSeconds}`];
      res.append("Set-Cookie", [...value, ...attributes].join("; "));
    }
    sendStep(res, step, cookies, logger);
  };
  const malformed = (res: Response) => send(res, { kind: "page", status: 400, html: noticePage("Bad request", "Malformed sign-in request.") });
  r.get("/svc/hmgr/login", async (req, res) => {
    const single = singleValued(req.query as Record<string, unknown>);
    const q = single ? loginQuery.safeParse(single) : null;
    if (!q?.success) return malformed(res);
    if (q.data.for === "admin") return send(res, await federation.startAdmin({ provider: q.data.provider, workspaceId: q.data.workspace_id, loginHint: q.data.login_hint }));
    send(res, await federation.start({ provider: q.data.provider, ticket: q.data.ticket, loginHint: q.data.login_hint }));
  });
  // Admin SSO's last step: the cockpit trades the one-time ticket for the admin JWT (as /svc/uflow/auth/login answers).
  r.post("/svc/uflow/auth/sso", async (req, res) => {
    res.set("Cache-Control", "no-store");
    const answer = await federation.redeemAdminTicket(parseWith(ssoBody, req.body).ticket);
    if (!answer) throw unauthenticated("the single sign-on ticket is not valid, expired or already used; sign in again");
    res.json(answer);
  });
  r.get("/svc/hmgr/callback", async (req, res) => {
    const single = singleValued(req.query as Record<string, unknown>);
    const q = single ? callbackQuery.safeParse(single) : null;
    if (!q?.success) return malformed(res);
    const step = await federation.callback(q.data, readFlowCookie(req, name), readSessionCookie(req, cookies));
    if (step.kind === "page" && step.status >= 400) logger.info({ requestId: res.locals.requestId, status: step.status }, "federated sign-in refused");
    send(res, step);
  });
  return r;
}
