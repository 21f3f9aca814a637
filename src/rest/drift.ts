// Admin REST for drift events: list (all, or ?undismissed=true; paginated with limit/cursor) and
// dismiss (idempotent).
import { Router } from "express";
import { z } from "zod";
import { listDriftEventsQuery, type ResourceServerLifecycle } from "../modules/resource-servers";
import { actorOf } from "./admin-auth";
import { idParams } from "./resource-servers";
import { parseWith } from "./validation";

const eventParams = idParams.extend({ event_id: z.string().uuid("must be a UUID") });

export function driftRouter(l: ResourceServerLifecycle): Router {
  const r = Router();
  r.get("/svc/resource-servers/:id/drift-events", async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    const { undismissed, limit, cursor } = parseWith(listDriftEventsQuery, req.query, "query");
    res.json(await l.drift.list(actorOf(res), id, { undismissed: undismissed === "true", limit, cursor }));
  });
  r.post("/svc/resource-servers/:id/drift-events/:event_id/dismiss", async (req, res) => {
    const { id, event_id } = parseWith(eventParams, req.params);
    res.json(await l.drift.dismiss(actorOf(res), id, event_id));
  });
  return r;
}
