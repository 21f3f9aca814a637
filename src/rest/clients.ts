// Admin REST for OAuth clients (spec "Access policy and clients",
// docs/decisions/0012-admin-interfaces.md). Thin: parse (zod), call one service method, answer.
//   POST   /svc/resource-servers/:id/clients                      pre-register (201, secret once)
//   GET    /svc/resource-servers/:id/clients?kind=&status=&limit=&cursor=  {items, count, next_cursor}
//   GET    /svc/resource-servers/:id/clients/:client_id           one client
//   PATCH  /svc/resource-servers/:id/clients/:client_id           configure (scopes, lifetime, ...)
//   POST   /svc/resource-servers/:id/clients/:client_id/revoke    revoke (200, the revoked client)
//   DELETE /svc/resource-servers/:id/clients/:client_id           revoke (204); the record is kept
//   PUT    /svc/resource-servers/:id/clients/:client_id/approve-redirects  apply a staged redirect-URI change
//   POST   /svc/resource-servers/:id/clients/:client_id/rotate-secret  new secret (once), {grace_seconds?}
//   POST   /svc/clientms/clients                                  dashboard registration form
import { Router } from "express";
import { z } from "zod";
import {
  clientIdParamSchema,
  createClientSchema,
  dashboardClientSchema,
  listClientsQuerySchema,
  rotateSecretSchema,
  updateClientSchema,
  type ClientService,
} from "../modules/clients";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const serverParams = z.object({ id: z.string().uuid("must be a UUID") });
const clientParams = serverParams.extend({ client_id: clientIdParamSchema });

export function clientsRouter(clients: ClientService): Router {
  const r = Router();
  r.post("/svc/resource-servers/:id/clients", async (req, res) => {
    const { id } = parseWith(serverParams, req.params);
    res.status(201).set("Cache-Control", "no-store").json(await clients.create(actorOf(res), id, parseWith(createClientSchema, req.body)));
  });
  r.get("/svc/resource-servers/:id/clients", async (req, res) => {
    const { id } = parseWith(serverParams, req.params);
    res.json(await clients.list(actorOf(res), id, parseWith(listClientsQuerySchema, req.query, "query")));
  });
  r.get("/svc/resource-servers/:id/clients/:client_id", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    res.json(await clients.get(actorOf(res), id, client_id));
  });
  r.patch("/svc/resource-servers/:id/clients/:client_id", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    res.json(await clients.update(actorOf(res), id, client_id, parseWith(updateClientSchema, req.body)));
  });
  r.put("/svc/resource-servers/:id/clients/:client_id/approve-redirects", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    res.json(await clients.approveRedirects(actorOf(res), id, client_id));
  });
  r.post("/svc/resource-servers/:id/clients/:client_id/rotate-secret", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    const input = parseWith(rotateSecretSchema, req.body);
    res.set("Cache-Control", "no-store").json(await clients.rotateSecret(actorOf(res), id, client_id, input));
  });
  r.post("/svc/resource-servers/:id/clients/:client_id/revoke", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    res.json(await clients.revoke(actorOf(res), id, client_id));
  });
  r.delete("/svc/resource-servers/:id/clients/:client_id", async (req, res) => {
    const { id, client_id } = parseWith(clientParams, req.params);
    await clients.revoke(actorOf(res), id, client_id);
    res.status(204).end();
  });
  r.post("/svc/clientms/clients", async (req, res) => {
    res.status(201).set("Cache-Control", "no-store").json(await clients.createFromDashboard(actorOf(res), parseWith(dashboardClientSchema, req.body)));
  });
  return r;
}
