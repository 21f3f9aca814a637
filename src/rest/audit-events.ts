// GET /svc/v1/workspaces/:workspace_id/audit-events (owners, admins, read-only auditors): one page
// of the workspace's audit trail, newest first, with filters (docs/audit-and-integrations.md).
import { Router } from "express";
import { z } from "zod";
import { listAuditEventsQuerySchema, type AuditEventService } from "../modules/audit";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const workspaceParams = z.object({ workspace_id: z.string().uuid("must be a UUID") });

export function auditEventsRouter(events: AuditEventService): Router {
  const r = Router();
  r.get("/svc/v1/workspaces/:workspace_id/audit-events", async (req, res) => {
    const { workspace_id } = parseWith(workspaceParams, req.params, "path");
    res.json(await events.list(actorOf(res), workspace_id, parseWith(listAuditEventsQuerySchema, req.query, "query")));
  });
  return r;
}
