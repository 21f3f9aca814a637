// /svc/sdkmgr/agents: AI agents of the token's workspace (docs/agents.md).
import { Router } from "express";
import { z } from "zod";
import { createAgentSchema, listAgentsQuerySchema, setAgentAccessSchema, updateAgentSchema, type AgentService } from "../modules/agents";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const agentParams = z.object({ agent_id: z.string().uuid("must be a UUID") });

export function agentsRouter(agents: AgentService): Router {
  const r = Router();
  const idOf = (params: unknown) => parseWith(agentParams, params, "path").agent_id;
  r.post("/svc/sdkmgr/agents", async (req, res) => {
    res.status(201).json(await agents.create(actorOf(res), parseWith(createAgentSchema, req.body)));
  });
  r.get("/svc/sdkmgr/agents", async (req, res) => {
    res.json(await agents.list(actorOf(res), parseWith(listAgentsQuerySchema, req.query, "query")));
  });
  r.get("/svc/sdkmgr/agents/:agent_id", async (req, res) => {
    res.json(await agents.get(actorOf(res), idOf(req.params)));
  });
  r.patch("/svc/sdkmgr/agents/:agent_id", async (req, res) => {
    res.json(await agents.update(actorOf(res), idOf(req.params), parseWith(updateAgentSchema, req.body)));
  });
  r.delete("/svc/sdkmgr/agents/:agent_id", async (req, res) => {
    await agents.remove(actorOf(res), idOf(req.params));
    res.status(204).end();
  });
  r.put("/svc/sdkmgr/agents/:agent_id/access", async (req, res) => {
    res.json(await agents.setAccess(actorOf(res), idOf(req.params), parseWith(setAgentAccessSchema, req.body)));
  });
  r.post("/svc/sdkmgr/agents/:agent_id/disable", async (req, res) => {
    res.json(await agents.disable(actorOf(res), idOf(req.params)));
  });
  r.post("/svc/sdkmgr/agents/:agent_id/enable", async (req, res) => {
    res.json(await agents.enable(actorOf(res), idOf(req.params)));
  });
  r.post("/svc/sdkmgr/agents/:agent_id/rotate-secret", async (req, res) => {
    res.json(await agents.rotateSecret(actorOf(res), idOf(req.params)));
  });
  return r;
}
