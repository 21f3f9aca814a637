// Access requests and agent connections of the token's workspace (docs/enterprise-agents.md):
// list per workspace or per server, approve (narrow scopes, bind a role), deny with a reason,
// revoke an approved connection.
import { Router } from "express";
import { z } from "zod";
import { approveAccessRequestSchema, denyAccessRequestSchema, listAccessRequestsQuery, type AccessRequestService } from "../modules/access-requests";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const idParams = z.object({ id: z.string().uuid("must be a UUID") });
const serverParams = z.object({ id: z.string().uuid("must be a UUID") });

export function accessRequestsRouter(requests: AccessRequestService): Router {
  const r = Router();
  const idOf = (params: unknown) => parseWith(idParams, params, "path").id;
  r.get("/svc/access-requests", async (req, res) => {
    res.json(await requests.list(actorOf(res), parseWith(listAccessRequestsQuery, req.query, "query")));
  });
  r.get("/svc/resource-servers/:id/access-requests", async (req, res) => {
    const serverId = parseWith(serverParams, req.params, "path").id;
    res.json(await requests.list(actorOf(res), parseWith(listAccessRequestsQuery, req.query, "query"), serverId));
  });
  r.get("/svc/access-requests/:id", async (req, res) => {
    res.json(await requests.get(actorOf(res), idOf(req.params)));
  });
  r.post("/svc/access-requests/:id/approve", async (req, res) => {
    res.json(await requests.approve(actorOf(res), idOf(req.params), parseWith(approveAccessRequestSchema, req.body ?? {})));
  });
  r.post("/svc/access-requests/:id/deny", async (req, res) => {
    res.json(await requests.deny(actorOf(res), idOf(req.params), parseWith(denyAccessRequestSchema, req.body)));
  });
  r.post("/svc/access-requests/:id/revoke", async (req, res) => {
    res.json(await requests.revoke(actorOf(res), idOf(req.params)));
  });
  return r;
}
