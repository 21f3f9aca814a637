// Admin REST for end-user state (spec "End users"). Thin: parse, call one service method, answer.
import { Router } from "express";
import { z } from "zod";
import { listEndUsersQuery, patchEndUserSchema, suspendEndUserSchema, type EndUserService } from "../modules/tenancy";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const tenantParams = z.object({ tenant_id: z.string().uuid("must be a UUID") });
const endUserParams = tenantParams.extend({ user_id: z.string().uuid("must be a UUID") });

export function endUsersRouter(endUsers: EndUserService): Router {
  const r = Router();
  const base = "/uflow/v2/tenants/:tenant_id/end-users";
  r.get(base, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params);
    res.json(await endUsers.list(actorOf(res), tenant_id, parseWith(listEndUsersQuery, req.query, "query")));
  });
  r.get(`${base}/:user_id`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(endUserParams, req.params);
    res.json(await endUsers.get(actorOf(res), tenant_id, user_id));
  });
  r.patch(`${base}/:user_id`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(endUserParams, req.params);
    res.json(await endUsers.patch(actorOf(res), tenant_id, user_id, parseWith(patchEndUserSchema, req.body)));
  });
  r.post(`${base}/:user_id/suspend`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(endUserParams, req.params);
    const { reason } = parseWith(suspendEndUserSchema, req.body);
    res.json(await endUsers.suspend(actorOf(res), tenant_id, user_id, reason));
  });
  // No body (spec); whatever is sent is ignored.
  r.post(`${base}/:user_id/reactivate`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(endUserParams, req.params);
    res.json(await endUsers.reactivate(actorOf(res), tenant_id, user_id));
  });
  return r;
}
