// AuthZEN 1.0 (OpenID Authorization API): POST /access/v1/evaluation, POST /access/v1/evaluations
// (Basic rs_id:introspection_secret, the runtime's credentials: the caller asks about its own
// server's tools only) and GET /.well-known/authzen-configuration (public PDP metadata).
// Mounted above the admin-JWT middleware with its own JSON parser. modules/authzen decides.
import express, { Router, type Request, type RequestHandler, type Response } from "express";
import { evaluationSchema, evaluationsSchema, type AuthZenService } from "../modules/authzen";
import type { RegisteredServer, ResourceServerRegistry } from "../modules/resource-servers";
import { basicCredentialsOf } from "./basic-auth";
import { rejectUnsafeInput } from "./input-hygiene";
import { parseWith } from "./validation";

/** The same bound as admin JSON: 100 evaluations fit easily. */
const BODY_LIMIT = "100kb";
const CHALLENGE = 'Basic realm="toolgate-authzen", charset="UTF-8"';

async function authenticate(registry: ResourceServerRegistry, req: Request, res: Response): Promise<RegisteredServer | undefined> {
  const creds = basicCredentialsOf(req);
  const rs = creds ? registry.verifySecret(await registry.get(creds.id), creds.secret) : undefined;
  if (!rs) {
    res.status(401).set("WWW-Authenticate", CHALLENGE).json({ error: "invalid resource server credentials" });
    return undefined;
  }
  return rs;
}

/** AuthZEN §10.1.3: a request id the PEP sends comes back on the response. */
function echoRequestId(req: Request, res: Response): void {
  const id = req.headers["x-request-id"];
  if (typeof id === "string" && id.length > 0 && id.length <= 256) res.set("X-Request-ID", id);
}

export function authzenRouter(authzen: AuthZenService, registry: ResourceServerRegistry): Router {
  const r = Router();
  r.get("/.well-known/authzen-configuration", (_req, res) => {
    res.set("Cache-Control", "public, max-age=3600").json(authzen.configuration());
  });
  // Credentials are checked before any body is read; then the body (JSON only, bounded).
  const caller: RequestHandler = async (req, res, next) => {
    echoRequestId(req, res);
    res.set("Cache-Control", "no-store");
    const rs = await authenticate(registry, req, res);
    if (!rs) return;
    if (!req.is("application/json")) {
      res.status(415).json({ error: "send the request as application/json" });
      return;
    }
    res.locals.authzenServer = rs;
    next();
  };
  const body = [caller, express.json({ limit: BODY_LIMIT }), rejectUnsafeInput];
  const server = (res: Response) => res.locals.authzenServer as RegisteredServer;
  r.post("/access/v1/evaluation", ...body, async (req, res) => {
    res.json(await authzen.evaluate(server(res), parseWith(evaluationSchema, req.body)));
  });
  r.post("/access/v1/evaluations", ...body, async (req, res) => {
    res.json(await authzen.evaluateMany(server(res), parseWith(evaluationsSchema, req.body)));
  });
  return r;
}
