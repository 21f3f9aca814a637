// POST /svc/v1/applications/:id/access-change-previews (spec "Aggregate access APIs"): body
// {"change": {...}}; nothing is written. modules/access-changes; docs/evidence-and-authzen.md.
import { Router } from "express";
import { z } from "zod";
import { previewRequestSchema, type AccessChangeService } from "../modules/access-changes";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const appParams = z.object({ id: z.string().uuid("must be a UUID") });

export function accessChangesRouter(changes: AccessChangeService): Router {
  const r = Router();
  r.post("/svc/v1/applications/:id/access-change-previews", async (req, res) => {
    const { id } = parseWith(appParams, req.params, "path");
    const { change } = parseWith(previewRequestSchema, req.body);
    res.json(await changes.preview(actorOf(res), id, change));
  });
  return r;
}
