// Opens the request context the audit trail reads (src/shared/request-context.ts): the request id
// (set by the request log just before) and the client address (req.ip, which honours
// TOOLGATE_TRUST_PROXY). Mounted after the OAuth hot paths and the runtime's sdk-policy, which write
// no audit event per request and so pay nothing for it; whoever authenticates the caller later
// names the actor (admin-auth.ts, the GraphQL context, the runtime's manifest route).
import type { Request, RequestHandler, Response } from "express";
import { runInContext, type RequestContext } from "../shared/request-context";

/** The context of one request, before its caller is known. */
export function contextOf(req: Request, res: Response): RequestContext {
  return { requestId: res.locals.requestId as string | undefined, address: req.ip };
}

export const requestContext: RequestHandler = (req, res, next) => runInContext(contextOf(req, res), next);
