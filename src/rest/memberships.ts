// Admin REST for workspace memberships (spec "Memberships"). Thin: parse, call one service method, answer.
import { Router } from "express";
import { z } from "zod";
import { createMembershipSchema, listMembershipsQuery, updateMembershipSchema, type MembershipService } from "../modules/tenancy";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const tenantParams = z.object({ tenant_id: z.string().uuid("must be a UUID") });
const memberParams = tenantParams.extend({ user_id: z.string().uuid("must be a UUID") });

export function membershipsRouter(memberships: MembershipService): Router {
  const r = Router();
  const base = "/uflow/v2/tenants/:tenant_id/memberships";
  r.get(base, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params);
    res.json(await memberships.list(actorOf(res), tenant_id, parseWith(listMembershipsQuery, req.query, "query")));
  });
  r.post(base, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params);
    const { membership, created } = await memberships.create(actorOf(res), tenant_id, parseWith(createMembershipSchema, req.body));
    res.status(created ? 201 : 200).json(membership);
  });
  r.get(`${base}/:user_id`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(memberParams, req.params);
    res.json(await memberships.get(actorOf(res), tenant_id, user_id));
  });
  r.patch(`${base}/:user_id`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(memberParams, req.params);
    res.json(await memberships.update(actorOf(res), tenant_id, user_id, parseWith(updateMembershipSchema, req.body)));
  });
  r.delete(`${base}/:user_id`, async (req, res) => {
    const { tenant_id, user_id } = parseWith(memberParams, req.params);
    await memberships.remove(actorOf(res), tenant_id, user_id);
    res.status(204).end();
  });
  return r;
}
