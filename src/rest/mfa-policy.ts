// The workspace's MFA rule for administrators (admin JWT):
//   GET /uflow/v2/tenants/:tenant_id/mfa-policy -> {require_mfa_for_admins}
//   PUT /uflow/v2/tenants/:tenant_id/mfa-policy {require_mfa_for_admins} (owners only)
import { Router } from "express";
import { z } from "zod";
import type { TenancyService } from "../modules/tenancy";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const tenantParams = z.object({ tenant_id: z.string().uuid("must be a UUID") });
const policyBody = z.object({ require_mfa_for_admins: z.boolean() }).strict();
const signInPolicyBody = z.object({ end_user_password: z.boolean() }).strict();

export function mfaPolicyRouter(tenancy: TenancyService): Router {
  const r = Router();
  const path = "/uflow/v2/tenants/:tenant_id/mfa-policy";
  r.get(path, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params, "path");
    res.json(await tenancy.mfaPolicy(actorOf(res), tenant_id));
  });
  r.put(path, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params, "path");
    res.json(await tenancy.setMfaPolicy(actorOf(res), tenant_id, parseWith(policyBody, req.body)));
  });
  // The end users' password form on the sign-in page (docs/federation.md "Password off").
  const signInPath = "/uflow/v2/tenants/:tenant_id/sign-in-policy";
  r.get(signInPath, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params, "path");
    res.json(await tenancy.signInPolicy(actorOf(res), tenant_id));
  });
  r.put(signInPath, async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params, "path");
    res.json(await tenancy.setSignInPolicy(actorOf(res), tenant_id, parseWith(signInPolicyBody, req.body)));
  });
  return r;
}
