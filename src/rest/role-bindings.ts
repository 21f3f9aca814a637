// Admin REST for role bindings of groups (spec "Group bindings"), users, and clients acting as
// service accounts (under the client-management prefix, spec "Gateway module prefixes").
import { Router } from "express";
import { z } from "zod";
import { createBindingSchema, listRoleBindingsQuery, type BindingService, type BindingSubject } from "../modules/rbac";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const groupParams = z.object({ group_id: z.string().uuid("must be a UUID") });
const userParams = z.object({ user_id: z.string().uuid("must be a UUID") });
// An OAuth client_id is opaque (URL-safe) or, for CIMD clients, the metadata URL.
const clientParams = z.object({ client_id: z.string().min(1).max(2048) });
const bindingParams = z.object({ binding_id: z.string().uuid("must be a UUID") });

export function roleBindingsRouter(bindings: BindingService): Router {
  const r = Router();
  const subjects: [string, (params: unknown) => BindingSubject][] = [
    ["/uflow/v2/groups/:group_id/role-bindings", (p) => ({ type: "group", id: parseWith(groupParams, p).group_id })],
    ["/uflow/v2/users/:user_id/role-bindings", (p) => ({ type: "user", id: parseWith(userParams, p).user_id })],
    ["/svc/clientms/clients/:client_id/role-bindings", (p) => ({ type: "service_account", clientId: parseWith(clientParams, p).client_id })],
  ];
  for (const [path, subjectOf] of subjects) {
    r.post(path, async (req, res) => {
      const subject = subjectOf(req.params);
      res.status(201).json(await bindings.create(actorOf(res), subject, parseWith(createBindingSchema, req.body)));
    });
    r.get(path, async (req, res) => {
      const subject = subjectOf(req.params);
      res.json(await bindings.listFor(actorOf(res), subject, parseWith(listRoleBindingsQuery, req.query, "query")));
    });
  }
  r.get("/uflow/v2/role-bindings/:binding_id", async (req, res) => {
    res.json(await bindings.get(actorOf(res), parseWith(bindingParams, req.params).binding_id));
  });
  r.delete("/uflow/v2/role-bindings/:binding_id", async (req, res) => {
    await bindings.remove(actorOf(res), parseWith(bindingParams, req.params).binding_id);
    res.status(204).end();
  });
  return r;
}
