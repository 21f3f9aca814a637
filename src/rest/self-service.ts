// A person's own sign-in settings (docs/openid-provider.md, docs/operations.md "Second factors"):
// second factors, passkeys, browser sessions and remembered consents. The caller is the person
// behind an admin JWT of theirs (an enrol-only token included) or behind their browser session
// cookie; a cookie-authenticated write must come from our own origin (session-cookie.ts). These
// routes authenticate themselves: they are mounted before the admin JWT middleware.
//   GET    /svc/uflow/mfa                        {totp: {enrolled, confirmed_at, recovery_codes_left}, passkeys}
//   POST   /svc/uflow/mfa/totp/enroll            {secret, otpauth_uri, qr_code} (shown once)
//   POST   /svc/uflow/mfa/totp/confirm  {code}   {recovery_codes} (shown once)
//   POST   /svc/uflow/mfa/totp/disable  {code}   204 (an authenticator code or a recovery code)
//   GET    /svc/uflow/session                    the browser's session (cookie only)
//   DELETE /svc/uflow/session                    sign out this browser (cookie only)
//   DELETE /svc/uflow/sessions                   sign out everywhere: every session of the person
//   GET    /svc/uflow/consents, DELETE /svc/uflow/consents/:consent_id
//   POST   /svc/webauthn/register/begin, /svc/webauthn/register/finish {response, name?}
//   GET    /svc/webauthn/credentials, DELETE /svc/webauthn/credentials/:credential_id
import { Router, type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import { amrOf, type BrowserSessions, type PasskeyService, type Person, type RememberedConsents, type TotpService } from "../modules/signin";
import { AdminAuthError, type AdminAuthenticator } from "../modules/tenancy";
import { DomainError, forbidden, unauthenticated } from "../shared/errors";
import { parseWith } from "./validation";
import { setContextActor } from "../shared/request-context";
import { fromOwnOrigin, readSessionCookie, writeSessionCookie, type CookieSettings } from "./session-cookie";

interface Caller extends Person {
  /** The browser session behind the call (absent for a bearer token). */
  sessionId?: string;
}

const codeBody = z.object({ code: z.string().min(1).max(64) }).strict();
const registerBody = z.object({ response: z.record(z.string(), z.unknown()), name: z.string().trim().min(1).max(100).optional() }).strict();
const consentParams = z.object({ consent_id: z.string().uuid("must be a UUID") });
const credentialParams = z.object({ credential_id: z.string().min(1).max(1024).regex(/^[A-Za-z0-9_-]+$/, "must be a base64url credential id") });

export interface SelfServiceDeps {
  adminAuth: AdminAuthenticator;
  sessions: BrowserSessions;
  consents: RememberedConsents;
  totp: TotpService;
  passkeys: PasskeyService;
  cookies: CookieSettings;
  publicUrl: string;
}

const callerOf = (res: Response): Caller => res.locals.person as Caller;

export function selfServiceRouter(d: SelfServiceDeps): Router {
  const r = Router();
  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    res.set("Cache-Control", "no-store");
    try {
      if (req.headers.authorization !== undefined) {
        const actor = await d.adminAuth.authenticatePerson(req.headers.authorization);
        res.locals.person = { tenantId: actor.tenantId, userId: actor.userId } satisfies Caller;
        // The audit trail's actor for what this person changes of their own (factors, consents).
        setContextActor({ type: "user", id: actor.userId }, actor.tenantId);
        return next();
      }
      const session = await d.sessions.find(readSessionCookie(req, d.cookies));
      if (!session) throw unauthenticated("sign in first (an admin bearer token or a browser session)");
      if (req.method !== "GET" && !fromOwnOrigin(req, d.publicUrl)) throw forbidden("cross-origin request refused");
      res.locals.person = { tenantId: session.tenantId, userId: session.userId, sessionId: session.id } satisfies Caller;
      setContextActor({ type: "user", id: session.userId }, session.tenantId);
      next();
    } catch (e) {
      if (e instanceof AdminAuthError && e.challenge) res.set("WWW-Authenticate", e.challenge);
      if (e instanceof DomainError) return void res.status(e.status).json({ error: e.message });
      throw e;
    }
  };
  const paths = ["/svc/uflow/mfa", "/svc/uflow/mfa/*rest", "/svc/uflow/session", "/svc/uflow/sessions", "/svc/uflow/consents", "/svc/uflow/consents/*rest", "/svc/webauthn/register/*rest", "/svc/webauthn/credentials", "/svc/webauthn/credentials/*rest"];
  r.use(paths, authenticate);
  const source = (req: Request) => ({ address: req.ip ?? "unknown" });

  r.get("/svc/uflow/mfa", async (_req, res) => {
    const p = callerOf(res);
    res.json({ totp: await d.totp.status(p), passkeys: (await d.passkeys.list(p)).length });
  });
  r.post("/svc/uflow/mfa/totp/enroll", async (_req, res) => {
    res.json(await d.totp.enroll(callerOf(res)));
  });
  r.post("/svc/uflow/mfa/totp/confirm", async (req, res) => {
    res.json(await d.totp.confirm(callerOf(res), parseWith(codeBody, req.body).code, source(req)));
  });
  r.post("/svc/uflow/mfa/totp/disable", async (req, res) => {
    await d.totp.disable(callerOf(res), parseWith(codeBody, req.body).code, source(req));
    res.status(204).end();
  });

  const sessionOnly = (res: Response): Caller & { sessionId: string } => {
    const p = callerOf(res);
    if (!p.sessionId) throw new DomainError("bad_request", "this call is about the browser session: send the session cookie, not a bearer token");
    return p as Caller & { sessionId: string };
  };
  r.get("/svc/uflow/session", async (req, res) => {
    sessionOnly(res);
    const s = (await d.sessions.find(readSessionCookie(req, d.cookies)))!;
    res.json({ session_id: s.id, user_id: s.userId, workspace_id: s.tenantId, factors: s.factors, amr: amrOf(s.factors), auth_time: s.authTime.toISOString(), expires_at: s.expiresAt.toISOString() });
  });
  r.delete("/svc/uflow/session", async (req, res) => {
    sessionOnly(res);
    await d.sessions.end(readSessionCookie(req, d.cookies));
    writeSessionCookie(res, d.cookies, { clear: true });
    res.status(204).end();
  });
  r.delete("/svc/uflow/sessions", async (_req, res) => {
    const p = callerOf(res);
    const ended = await d.sessions.endEverywhere(p.tenantId, p.userId);
    if (p.sessionId) writeSessionCookie(res, d.cookies, { clear: true });
    res.json({ ended });
  });

  r.get("/svc/uflow/consents", async (_req, res) => {
    const p = callerOf(res);
    const items = await d.consents.list(p.tenantId, p.userId);
    res.json({ items, count: items.length, next_cursor: null });
  });
  r.delete("/svc/uflow/consents/:consent_id", async (req, res) => {
    const p = callerOf(res);
    const { consent_id } = parseWith(consentParams, req.params, "path");
    if (!(await d.consents.forget(p.tenantId, p.userId, consent_id))) throw new DomainError("not_found", "consent not found");
    res.status(204).end();
  });

  r.post("/svc/webauthn/register/begin", async (_req, res) => {
    res.json(await d.passkeys.registrationOptions(callerOf(res)));
  });
  r.post("/svc/webauthn/register/finish", async (req, res) => {
    const body = parseWith(registerBody, req.body);
    res.status(201).json(await d.passkeys.register(callerOf(res), body.response as never, body.name));
  });
  r.get("/svc/webauthn/credentials", async (_req, res) => {
    const items = await d.passkeys.list(callerOf(res));
    res.json({ items, count: items.length, next_cursor: null });
  });
  r.delete("/svc/webauthn/credentials/:credential_id", async (req, res) => {
    const { credential_id } = parseWith(credentialParams, req.params, "path");
    await d.passkeys.remove(callerOf(res), credential_id);
    res.status(204).end();
  });
  return r;
}
