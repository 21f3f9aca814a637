// Admin REST for a workspace's upstream OpenID providers (/svc/oocmgr/providers; the workspace
// comes from the admin JWT; owner/admin write, readonly_auditor reads). The discovery document is
// fetched and checked on create and on an issuer change (400 naming what failed).
import { Router } from "express";
import { z } from "zod";
import { createProviderSchema, listProvidersQuery, updateProviderSchema, type IdentityProviderService } from "../modules/identity-providers";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const params = z.object({ provider_id: z.string().uuid("must be a UUID") });

export function identityProvidersRouter(providers: IdentityProviderService): Router {
  const r = Router();
  r.get("/svc/oocmgr/providers", async (req, res) => {
    res.json(await providers.list(actorOf(res), parseWith(listProvidersQuery, req.query, "query")));
  });
  r.post("/svc/oocmgr/providers", async (req, res) => {
    res.status(201).json(await providers.create(actorOf(res), parseWith(createProviderSchema, req.body)));
  });
  r.get("/svc/oocmgr/providers/:provider_id", async (req, res) => {
    res.json(await providers.get(actorOf(res), parseWith(params, req.params, "path").provider_id));
  });
  r.patch("/svc/oocmgr/providers/:provider_id", async (req, res) => {
    const { provider_id } = parseWith(params, req.params, "path");
    res.json(await providers.update(actorOf(res), provider_id, parseWith(updateProviderSchema, req.body)));
  });
  r.delete("/svc/oocmgr/providers/:provider_id", async (req, res) => {
    await providers.remove(actorOf(res), parseWith(params, req.params, "path").provider_id);
    res.status(204).end();
  });
  return r;
}
