// GET /svc/hmgr/admin-providers?workspace_id=<uuid> (unauthenticated): the identity providers a
// workspace offers for signing in to the cockpit ("Continue with <name>", docs/federation.md
// "Admin SSO"), as {items: [{id, name}]}. Only the enabled providers allowed for admins, and only
// their id and name: the same names the end users' sign-in page already shows. Keyed by workspace
// id, never by email or email domain, so it tells nothing about accounts; an unknown workspace
// and one without such a provider answer the same empty list (no workspace enumeration either).
import { Router } from "express";
import { z } from "zod";
import type { IdentityProviderService } from "../modules/identity-providers";
import { parseWith } from "./validation";

const query = z.object({ workspace_id: z.string().uuid("must be a UUID") }).strict();

export function adminSignInProvidersRouter(providers: IdentityProviderService): Router {
  const r = Router();
  r.get("/svc/hmgr/admin-providers", async (req, res) => {
    const { workspace_id } = parseWith(query, req.query, "query");
    const offered = await providers.offered(workspace_id, "admins");
    res.set("Cache-Control", "no-store").json({ items: offered.map((p) => ({ id: p.id, name: p.name })) });
  });
  return r;
}
