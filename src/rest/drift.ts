// Admin REST for drift events: list (all, or ?undismissed=true) and dismiss (idempotent).
import { Router } from "express";
import { z } from "zod";
import type { ResourceServerLifecycle } from "../modules/resource-servers";
import { actorOf } from "./admin-auth";
import { idParams } from "./resource-servers";
import { parseWith } from "./validation";

const listQuery = z.object({ undismissed: z.enum(["true", "false"], { error: 'must be "true" or "false"' }).optional() }).strict();
const eventParams = idParams.extend({ event_id: z.string().uuid("must be a UUID") });

export function driftRouter(l: ResourceServerLifecycle): Router {
  const r = Router();
  r.get("/svc/resource-servers/:id/drift-events", async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    const { undismissed } = parseWith(listQuery, req.query, "query");
    res.json(await l.drift.list(actorOf(res), id, { undismissed: undismissed === "true" }));
  });
  r.post("/svc/resource-servers/:id/drift-events/:event_id/dismiss", async (req, res) => {
    const { id, event_id } = parseWith(eventParams, req.params);
    res.json(await l.drift.dismiss(actorOf(res), id, event_id));
  });
  return r;
}
