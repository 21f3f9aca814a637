// GET /uflow/v2/users/:user_id/effective-access (spec): an array, not {items, count}.
import { Router } from "express";
import { z } from "zod";
import type { EffectiveAccessService } from "../modules/rbac";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const userParams = z.object({ user_id: z.string().uuid("must be a UUID") });

export function effectiveAccessRouter(effectiveAccess: EffectiveAccessService): Router {
  const r = Router();
  r.get("/uflow/v2/users/:user_id/effective-access", async (req, res) => {
    res.json(await effectiveAccess.forUser(actorOf(res), parseWith(userParams, req.params).user_id));
  });
  return r;
}
