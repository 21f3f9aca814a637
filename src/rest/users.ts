import { Router } from "express";
import { z } from "zod";
import type { TenancyService } from "../modules/tenancy";
import { emailSchema, passwordSchema } from "../modules/tenancy";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const createUserBody = z
  .object({ email: emailSchema, username: z.string().trim().min(1).max(128), password: passwordSchema.optional() })
  .strict();
const tenantParams = z.object({ tenant_id: z.string().uuid() });

export function usersRouter(tenancy: TenancyService): Router {
  const r = Router();
  r.post("/uflow/v2/tenants/:tenant_id/users", async (req, res) => {
    const { tenant_id } = parseWith(tenantParams, req.params);
    const body = parseWith(createUserBody, req.body);
    res.status(201).json(await tenancy.createUser(actorOf(res), tenant_id, body));
  });
  return r;
}
