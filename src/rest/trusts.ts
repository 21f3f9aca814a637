// /svc/oocmgr/id-jag-trusts (identity providers trusted to issue ID-JAGs) and
// /svc/spire/trust-domains (workload identity trusts) of the token's workspace (docs/enterprise-agents.md).
import { Router } from "express";
import { createIdJagTrustSchema, updateIdJagTrustSchema, createWorkloadTrustSchema, trustIdParams, type TrustService } from "../modules/trusts";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

export function trustsRouter(trusts: TrustService): Router {
  const r = Router();
  const idOf = (params: unknown) => parseWith(trustIdParams, params, "path").id;
  r.post("/svc/oocmgr/id-jag-trusts", async (req, res) => {
    res.status(201).json(await trusts.createIdJag(actorOf(res), parseWith(createIdJagTrustSchema, req.body)));
  });
  r.get("/svc/oocmgr/id-jag-trusts", async (_req, res) => {
    res.json(await trusts.listIdJag(actorOf(res)));
  });
  r.get("/svc/oocmgr/id-jag-trusts/:id", async (req, res) => {
    res.json(await trusts.getIdJag(actorOf(res), idOf(req.params)));
  });
  r.patch("/svc/oocmgr/id-jag-trusts/:id", async (req, res) => {
    res.json(await trusts.updateIdJag(actorOf(res), idOf(req.params), parseWith(updateIdJagTrustSchema, req.body)));
  });
  r.delete("/svc/oocmgr/id-jag-trusts/:id", async (req, res) => {
    await trusts.removeIdJag(actorOf(res), idOf(req.params));
    res.status(204).end();
  });
  r.post("/svc/spire/trust-domains", async (req, res) => {
    res.status(201).json(await trusts.createWorkload(actorOf(res), parseWith(createWorkloadTrustSchema, req.body)));
  });
  r.get("/svc/spire/trust-domains", async (_req, res) => {
    res.json(await trusts.listWorkload(actorOf(res)));
  });
  r.get("/svc/spire/trust-domains/:id", async (req, res) => {
    res.json(await trusts.getWorkload(actorOf(res), idOf(req.params)));
  });
  r.delete("/svc/spire/trust-domains/:id", async (req, res) => {
    await trusts.removeWorkload(actorOf(res), idOf(req.params));
    res.status(204).end();
  });
  return r;
}
