// Admin REST for roles under the RBAC module prefix (spec "Gateway module prefixes": GET /svc/authmgr/roles).
import { Router } from "express";
import { z } from "zod";
import { listRolesQuery, roleInputSchema, type RoleService } from "../modules/rbac";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const roleParams = z.object({ role_id: z.string().uuid("must be a UUID") });

export function rolesRouter(roles: RoleService): Router {
  const r = Router();
  r.get("/svc/authmgr/roles", async (req, res) => {
    res.json(await roles.list(actorOf(res), parseWith(listRolesQuery, req.query, "query")));
  });
  r.post("/svc/authmgr/roles", async (req, res) => {
    res.status(201).json(await roles.create(actorOf(res), parseWith(roleInputSchema, req.body)));
  });
  r.get("/svc/authmgr/roles/:role_id", async (req, res) => {
    res.json(await roles.get(actorOf(res), parseWith(roleParams, req.params).role_id));
  });
  r.put("/svc/authmgr/roles/:role_id", async (req, res) => {
    const { role_id } = parseWith(roleParams, req.params);
    res.json(await roles.replace(actorOf(res), role_id, parseWith(roleInputSchema, req.body)));
  });
  r.delete("/svc/authmgr/roles/:role_id", async (req, res) => {
    await roles.remove(actorOf(res), parseWith(roleParams, req.params).role_id);
    res.status(204).end();
  });
  return r;
}
