import { Router } from "express";
import { z } from "zod";
import type { TenancyService } from "../modules/tenancy";
import { parseWith } from "./validation";

const loginBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(1024),
  workspace_id: z.string().uuid().optional(),
});

/**
 * Admin login (docs/decisions/0012-admin-interfaces.md):
 * POST /svc/uflow/auth/login -> {access_token, token_type, expires_in}.
 */
export function authRouter(tenancy: TenancyService): Router {
  const r = Router();
  r.post("/svc/uflow/auth/login", async (req, res) => {
    const body = parseWith(loginBody, req.body);
    // req.ip: the socket's address, or the proxy-reported one when TOOLGATE_TRUST_PROXY says so.
    res.set("Cache-Control", "no-store").json(await tenancy.login(body, { address: req.ip ?? "unknown" }));
  });
  return r;
}
