// Admin REST for a server's tools, scopes and scope matrix, and the status of the runtime's
// manifest push. Thin: parse (zod), call one service method, answer.
import { Router } from "express";
import { z } from "zod";
import {
  createScopeSchema,
  createToolSchema,
  listScopesQuery,
  listToolsQuery,
  markPublicSchema,
  scopeTokenSchema,
  toolScopeMapSchema,
  type ResourceServerLifecycle,
} from "../modules/resource-servers";
import { actorOf } from "./admin-auth";
import { idParams } from "./resource-servers";
import { parseWith } from "./validation";

const toolParams = idParams.extend({ tool_id: z.string().uuid("must be a UUID") });
const scopeParams = idParams.extend({ scope_id: scopeTokenSchema });

export function toolsScopesRouter(l: ResourceServerLifecycle): Router {
  const r = Router();
  const base = "/svc/resource-servers/:id";

  r.get(`${base}/scope-matrix`, async (req, res) => {
    res.json(await l.catalog.scopeMatrix(actorOf(res), parseWith(idParams, req.params).id));
  });
  r.put(`${base}/tool-scope-map`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await l.catalog.setToolScopeMap(actorOf(res), id, parseWith(toolScopeMapSchema, req.body)));
  });
  r.get(`${base}/tools`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await l.catalog.listTools(actorOf(res), id, parseWith(listToolsQuery, req.query, "query")));
  });
  r.post(`${base}/tools`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.status(201).json(await l.catalog.createTool(actorOf(res), id, parseWith(createToolSchema, req.body)));
  });
  r.post(`${base}/tools/:tool_id/public`, async (req, res) => {
    const { id, tool_id } = parseWith(toolParams, req.params);
    // The spec's call has no body (Express leaves req.body undefined then).
    res.json(await l.catalog.setPublic(actorOf(res), id, tool_id, parseWith(markPublicSchema, req.body ?? {})));
  });
  r.post(`${base}/tools/:tool_id/approve-definition`, async (req, res) => {
    const { id, tool_id } = parseWith(toolParams, req.params);
    res.json(await l.catalog.approveDefinition(actorOf(res), id, tool_id));
  });
  r.get(`${base}/scopes`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.json(await l.catalog.listScopes(actorOf(res), id, parseWith(listScopesQuery, req.query, "query")));
  });
  r.post(`${base}/scopes`, async (req, res) => {
    const { id } = parseWith(idParams, req.params);
    res.status(201).json(await l.catalog.createScope(actorOf(res), id, parseWith(createScopeSchema, req.body)));
  });
  r.delete(`${base}/scopes/:scope_id`, async (req, res) => {
    const { id, scope_id } = parseWith(scopeParams, req.params);
    await l.catalog.deleteScope(actorOf(res), id, scope_id);
    res.status(204).end();
  });
  r.get(`${base}/sdk-manifest-status`, async (req, res) => {
    res.json(await l.runtime.manifestStatus(actorOf(res), parseWith(idParams, req.params).id));
  });
  return r;
}
