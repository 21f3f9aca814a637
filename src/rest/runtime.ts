// Runtime endpoints for resource servers (spec: Basic `rs_id:introspection_secret` only). Mounted
// above the admin-JWT middleware and above the global body parsers: the manifest has its own,
// larger size limit, and credentials are checked before any body is read.
//
// GET sdk-policy is a hot path: credentials are checked against the in-memory registry (HMAC,
// constant time) and the answer is a prebuilt buffer with a strong ETag; no database query, no
// JSON serialization per request. `If-None-Match` answers 304.
import { assertSafeInput, rejectUnsafeInput } from "./input-hygiene";
import express, { Router, type Request, type Response } from "express";
import type { CompiledPolicy, RegisteredServer, ResourceServerRegistry, ResourceServerLifecycle } from "../modules/resource-servers";
import { parseBasicAuth } from "./basic-auth";
import { contextOf } from "./request-context";
import { runInContext } from "../shared/request-context";

/** A manifest carries every tool with its input schema: larger than admin JSON, still bounded. */
export const MANIFEST_BODY_LIMIT = "1mb";

const CHALLENGE = 'Basic realm="toolgate-runtime", charset="UTF-8"';

/** The authenticated server, or undefined after answering 401; synchronous when the server entry is cached. */
function authenticate(registry: ResourceServerRegistry, req: Request, res: Response): RegisteredServer | undefined | Promise<RegisteredServer | undefined> {
  // These routes read :id without parseWith: refuse an id the database cannot take (400 naming it)
  // before it reaches the registry's lookup.
  assertSafeInput(req.params);
  const creds = parseBasicAuth(req.headers.authorization);
  // The path must name the server the credentials belong to: one server's secret reads nothing else.
  if (!creds || creds.id !== req.params.id) return refuse(res);
  const judge = (rs: RegisteredServer | null) => registry.verifySecret(rs, creds.secret) ?? refuse(res);
  const server = registry.get(creds.id);
  return server instanceof Promise ? server.then(judge) : judge(server);
}

function refuse(res: Response): undefined {
  res.status(401).set("WWW-Authenticate", CHALLENGE).json({ error: "invalid resource server credentials" });
  return undefined;
}

/** Runs `then` with the value, synchronously when it is not a promise (the hot path's common case). */
function andThen<T>(value: T | Promise<T>, then: (v: T) => void | Promise<void>): void | Promise<void> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** RFC 9110 §13.1.2: a list of entity tags or "*"; weak comparison is fine for GET. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

export function runtimeRouter(registry: ResourceServerRegistry, lifecycle: Pick<ResourceServerLifecycle, "runtime">): Router {
  const r = Router();
  const { runtime } = lifecycle;

  r.get("/svc/resource-servers/:id/sdk-policy", (req, res) =>
    andThen(authenticate(registry, req, res), (rs) => {
      if (rs) return andThen(runtime.policy(rs), (policy) => sendPolicy(req, res, policy));
    }),
  );

  function sendPolicy(req: Request, res: Response, policy: CompiledPolicy): void {
    res.setHeader("ETag", policy.etag);
    // Runtimes may keep the document, but must revalidate (cheap with If-None-Match) before reuse.
    res.setHeader("Cache-Control", "no-cache");
    if (etagMatches(req.headers["if-none-match"], policy.etag)) {
      res.status(304).end();
      return;
    }
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", policy.bytes.length);
    res.status(200).end(policy.bytes);
  }

  const manifestBody = express.json({ limit: MANIFEST_BODY_LIMIT });
  r.put(
    "/svc/resource-servers/:id/sdk-manifest",
    async (req, res, next) => {
      const rs = await authenticate(registry, req, res);
      if (!rs) return;
      if (!req.is("application/json")) {
        res.status(415).json({ error: "the manifest must be sent as application/json" });
        return;
      }
      res.locals.runtimeServer = rs;
      next();
    },
    manifestBody,
    rejectUnsafeInput,
    async (req, res) => {
      const rs = res.locals.runtimeServer as RegisteredServer;
      // Mounted before the request context (sdk-policy is a hot path): the push opens its own, the
      // audit trail's actor being the resource server.
      const context = { ...contextOf(req, res), actor: { type: "resource_server" as const, id: rs.id }, workspaceId: rs.tenantId };
      res.json(await runInContext(context, () => runtime.pushManifest(rs, req.body)));
    },
  );
  return r;
}
