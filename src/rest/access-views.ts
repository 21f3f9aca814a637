// The spec's aggregate access APIs under /svc/v1 (admin JWT; docs/access-explained.md): read
// models of an application's access and access simulations. Routers only parse and answer; the
// access-views module decides (and checks the role: docs/decisions/0032).
import { Router } from "express";
import { effectiveAccessQuery, simulationInputSchema, type AccessViews } from "../modules/access-views";
import { actorOf } from "./admin-auth";
import { idParams } from "./resource-servers";
import { parseWith } from "./validation";

export function accessViewsRouter(views: AccessViews): Router {
  const r = Router();
  const app = "/svc/v1/applications/:id";
  r.post(`${app}/access-simulations`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await views.simulations.simulate(actorOf(res), id, parseWith(simulationInputSchema, req.body ?? {})));
  });
  r.get(`${app}/effective-access`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await views.effectiveAccess.forUser(actorOf(res), id, parseWith(effectiveAccessQuery, req.query, "query").user_id));
  });
  return r;
}
