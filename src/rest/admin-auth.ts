// Admin JWT authentication for every admin route (spec "Authentication" 3 and 5): a missing or
// invalid token is 401, a signed token without a tenant is 401 "tenant_id required in JWT", and a
// caller who is no longer an active member of that workspace is 403. The resulting Actor is put
// on res.locals; the services then check the role.
import type { RequestHandler, Response } from "express";
import type { Actor } from "../shared/actor";
import { DomainError } from "../shared/errors";
import type { JwtService } from "../modules/tokens";
import type { TenancyService } from "../modules/tenancy";

export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header ?? "");
  return m?.[1];
}

export function adminAuth(jwt: JwtService, tenancy: TenancyService): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      res.set("WWW-Authenticate", 'Bearer realm="toolgate-admin"').status(401).json({ error: "missing bearer token" });
      return;
    }
    const claims = await jwt.verifyAdminToken(token);
    if (!claims) {
      res.set("WWW-Authenticate", 'Bearer realm="toolgate-admin", error="invalid_token"').status(401).json({ error: "invalid or expired token" });
      return;
    }
    const tenantId = claims.workspace_id ?? claims.tenant_id;
    if (typeof tenantId !== "string" || tenantId === "") {
      res.status(401).json({ error: "tenant_id required in JWT" });
      return;
    }
    try {
      res.locals.actor = await tenancy.resolveActor(claims.sub, tenantId);
    } catch (e) {
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
