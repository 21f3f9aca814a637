// The spec's aggregate access APIs under /svc/v1 (admin JWT; docs/access-explained.md): read
// models of an application's access and access simulations. Routers only parse and answer; the
// access-views module decides (and checks the role: docs/decisions/0032).
import { Router } from "express";
import { z } from "zod";
import { assignmentsQuery, effectiveAccessQuery, endUserSummaryQuery, postureQuery, recentFailuresQuery, scopeHoldersQuery, scopesQuery, simulationInputSchema, toolExposureQuery, type AccessViews } from "../modules/access-views";
import { scopeTokenSchema } from "../modules/resource-servers";
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
  const m = views.readModels;
  r.get("/svc/v1/workspaces/:workspace_id/applications/posture-summary", async (req, res) => {
    const { workspace_id } = parseWith(workspaceParams, req.params);
    res.json(await m.postureSummary(actorOf(res), workspace_id, parseWith(postureQuery, req.query, "query")));
  });
  r.get(`${app}/tool-exposure`, async (req, res) => {
    res.json(await m.toolExposure(actorOf(res), parseWith(idParams, req.params).id, parseWith(toolExposureQuery, req.query, "query")));
  });
  r.get(`${app}/scopes`, async (req, res) => {
    res.json(await m.scopes(actorOf(res), parseWith(idParams, req.params).id, parseWith(scopesQuery, req.query, "query")));
  });
  r.get(`${app}/scopes/:scope_id/impact`, async (req, res) => {
    const { id, scope_id } = parseWith(scopeParams, req.params);
    res.json(await m.scopeImpact(actorOf(res), id, scope_id, parseWith(scopeHoldersQuery, req.query, "query")));
  });
  r.get(`${app}/access-assignments`, async (req, res) => {
    res.json(await m.accessAssignments(actorOf(res), parseWith(idParams, req.params).id, parseWith(assignmentsQuery, req.query, "query")));
  });
  r.get(`${app}/end-user-access-summary`, async (req, res) => {
    res.json(await m.endUserAccessSummary(actorOf(res), parseWith(idParams, req.params).id, parseWith(endUserSummaryQuery, req.query, "query")));
  });
  r.get("/svc/v1/workspaces/:workspace_id/recent-failures", async (req, res) => {
    const { workspace_id } = parseWith(workspaceParams, req.params);
    res.json(await views.failures.recent(actorOf(res), workspace_id, parseWith(recentFailuresQuery, req.query, "query")));
  });
  return r;
}

const workspaceParams = z.object({ workspace_id: z.string().uuid("must be a UUID") });
const scopeParams = idParams.extend({ scope_id: scopeTokenSchema });
