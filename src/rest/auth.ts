import { Router } from "express";
import { z } from "zod";
import type { AdminSignIn } from "../modules/signin";
import type { AdminCandidate } from "../modules/tenancy";
import { parseWith } from "./validation";

const loginBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(1024),
  workspace_id: z.string().uuid().optional(),
});
const mfaBody = z.object({ mfa_ticket: z.string().min(1).max(8192), code: z.string().min(1).max(64) }).strict();

/**
 * Admin login (docs/decisions/0012-admin-interfaces.md, docs/operations.md "Second factors"):
 * POST /svc/uflow/auth/login -> {access_token, token_type, expires_in}, or 401
 * {"error":"mfa_required","mfa_ticket","factors","expires_in"} when the account has a second
 * factor; then POST /svc/uflow/auth/mfa {mfa_ticket, code} (or the passkey ceremony at
 * /svc/webauthn/login/*) gives the token.
 */
export function authRouter(admin: AdminSignIn<AdminCandidate>): Router {
  const r = Router();
  r.post("/svc/uflow/auth/login", async (req, res) => {
    const body = parseWith(loginBody, req.body);
    // req.ip: the socket's address, or the proxy-reported one when TOOLGATE_TRUST_PROXY says so.
    res.set("Cache-Control", "no-store").json(await admin.login(body, { address: req.ip ?? "unknown" }));
  });
  r.post("/svc/uflow/auth/mfa", async (req, res) => {
    const body = parseWith(mfaBody, req.body);
    res.set("Cache-Control", "no-store").json(await admin.completeWithCode(body.mfa_ticket, body.code, { address: req.ip ?? "unknown" }));
  });
  return r;
}
