// Passkey sign-in ceremonies (unauthenticated: they are how one signs in):
//   POST /svc/webauthn/login/begin  {ticket} | {mfa_ticket}            -> PublicKeyCredentialRequestOptionsJSON
//   POST /svc/webauthn/login/finish {ticket | mfa_ticket, response}     -> {redirect} (+ session cookie) | admin token
// `ticket` is a sign-in page's (username-less on the first page; the user's own passkeys on the
// second-factor page); `mfa_ticket` is admin login's second step (docs/operations.md).
import { Router, type Response } from "express";
import { z } from "zod";
import type { AdminSignIn, SignInService } from "../modules/signin";
import type { AdminCandidate } from "../modules/tenancy";
import { DomainError } from "../shared/errors";
import type { Logger } from "../shared/logger";
import { parseWith } from "./validation";
import { sendStep } from "./authorize";
import { fromOwnOrigin, readSessionCookie, type CookieSettings } from "./session-cookie";

const ticketSchema = z.string().min(1).max(8192);
const beginBody = z.union([z.object({ ticket: ticketSchema }).strict(), z.object({ mfa_ticket: ticketSchema }).strict()]);
const finishBody = z.union([
  z.object({ ticket: ticketSchema, response: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ mfa_ticket: ticketSchema, response: z.record(z.string(), z.unknown()) }).strict(),
]);

const expired = () => new DomainError("bad_request", "ticket: the sign-in page has expired; start again");

export function webauthnLoginRouter(signIn: SignInService, admin: AdminSignIn<AdminCandidate>, cookies: CookieSettings, publicUrl: string, logger: Logger): Router {
  const r = Router();
  const noStore = (res: Response) => res.set("Cache-Control", "no-store");
  r.post("/svc/webauthn/login/begin", async (req, res) => {
    noStore(res);
    const body = parseWith(beginBody, req.body);
    if ("mfa_ticket" in body) return void res.json(await admin.passkeyOptions(body.mfa_ticket));
    const options = await signIn.passkeyOptions(body.ticket);
    if (!options) throw expired();
    res.json(options);
  });
  r.post("/svc/webauthn/login/finish", async (req, res) => {
    noStore(res);
    const body = parseWith(finishBody, req.body);
    if ("mfa_ticket" in body) return void res.json(await admin.completeWithPasskey(body.mfa_ticket, body.response as never));
    // It sets the session cookie: only our own sign-in page may call it.
    if (!fromOwnOrigin(req, publicUrl)) throw new DomainError("forbidden", "cross-origin request refused");
    const step = await signIn.passkeySignIn(body.ticket, body.response as never, readSessionCookie(req, cookies)).catch((e) => {
      if (e instanceof DomainError && "event" in e) logger.info({ requestId: res.locals.requestId, sign_in: (e as { event: unknown }).event }, "sign-in step");
      throw e;
    });
    if (!step) throw expired();
    sendStep(res, step, cookies, logger);
  });
  return r;
}
