// Admin REST for the lifecycle of a resource server: rescan, setup checklist, validate,
// activation preview, activation, test-login and access policy. Thin: parse (zod), call one service method, answer.
import { Router } from "express";
import { z } from "zod";
import { accessPolicySchema, mcpTokenSchema, type ResourceServerLifecycle } from "../modules/resource-servers";
import { actorOf } from "./admin-auth";
import { idParams } from "./resource-servers";
import { parseWith } from "./validation";

// mcp_token: the module's rule (visible ASCII: it is sent as a Bearer header), checked before any state change.
const rescanBody = z.object({ mcp_token: mcpTokenSchema.optional() }).strict();

export function lifecycleRouter(l: ResourceServerLifecycle): Router {
  const r = Router();
  const base = "/svc/resource-servers/:id";

  r.post(`${base}/rescan`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await l.scans.rescan(actorOf(res), id, parseWith(rescanBody, req.body)));
  });
  r.get(`${base}/setup`, async (req, res) => {
    res.json(await l.setup.setup(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.post(`${base}/validate`, async (req, res) => {
    res.json(await l.setup.validate(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.get(`${base}/activation-preview`, async (req, res) => {
    res.json(await l.setup.activationPreview(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.post(`${base}/activate`, async (req, res) => {
    res.json(await l.setup.activate(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.post(`${base}/test-login`, async (req, res) => {
    res.json(await l.setup.testLogin(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.get(`${base}/access-policy`, async (req, res) => {
    res.json(await l.accessPolicy.get(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.put(`${base}/access-policy`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await l.accessPolicy.put(actorOf(res), id, parseWith(accessPolicySchema, req.body)));
  });
  return r;
}
