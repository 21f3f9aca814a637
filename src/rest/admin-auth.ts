// Admin authentication for every admin route: the tenancy module's AdminAuthenticator decides
// (401 / 401 "tenant_id required in JWT" / 403); this adapter sends its answer and puts the Actor on
// res.locals; the services then check the role.
import type { RequestHandler, Response } from "express";
import type { Actor } from "../shared/actor";
import { DomainError } from "../shared/errors";
import { AdminAuthError, type AdminAuthenticator } from "../modules/tenancy";
import { setContextActor } from "../shared/request-context";

export function adminAuth(auth: AdminAuthenticator): RequestHandler {
  return async (req, res, next) => {
    try {
      const actor = await auth.authenticate(req.headers.authorization);
      res.locals.actor = actor;
      // The audit trail's actor for everything this request writes.
      setContextActor({ type: "user", id: actor.userId }, actor.tenantId);
    } catch (e) {
      if (e instanceof AdminAuthError && e.challenge) res.set("WWW-Authenticate", e.challenge);
      if (e instanceof DomainError) {
        res.status(e.status).json({ error: e.message });
        return;
      }
      throw e;
    }
    next();
  };
}

export function actorOf(res: Response): Actor {
  const actor = res.locals.actor as Actor | undefined;
  if (!actor) throw new Error("adminAuth did not run for this route");
  return actor;
}

/**
 * Admin answers are per-user and some carry one-time secrets (registration, rotation): no cache
 * (browser, proxy) may keep them (RFC 9111 §5.2.2.5).
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set("Cache-Control", "no-store");
  next();
};
