// Admin REST for resource-server registration (spec "Resource server lifecycle"). Thin: parse, call
// one service method, answer.
import { Router } from "express";
import { z } from "zod";
import { createResourceServerSchema, listResourceServersQuery, updateResourceServerSchema, type ResourceServerService } from "../modules/resource-servers";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

export const idParams = z.object({ id: z.string().uuid("must be a UUID") });

export function resourceServersRouter(servers: ResourceServerService): Router {
  const r = Router();
  r.post("/svc/resource-servers", async (req, res) => {
    res.status(201).json(await servers.create(actorOf(res), parseWith(createResourceServerSchema, req.body)));
  });
  r.get("/svc/resource-servers", async (req, res) => {
    res.json(await servers.list(actorOf(res), parseWith(listResourceServersQuery, req.query, "query")));
  });
  r.get("/svc/resource-servers/:id", async (req, res) => {
    res.json(await servers.get(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.put("/svc/resource-servers/:id", async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await servers.update(actorOf(res), id, parseWith(updateResourceServerSchema, req.body)));
  });
  r.delete("/svc/resource-servers/:id", async (req, res) => {
    await servers.remove(actorOf(res), parseWith(idParams, req.params).id);
    res.status(204).end();
  });
  r.post("/svc/resource-servers/:id/rotate-introspection-secret", async (req, res) => {
    res.json(await servers.rotateSecret(actorOf(res), parseWith(idParams, req.params).id));
  });
  return r;
}
