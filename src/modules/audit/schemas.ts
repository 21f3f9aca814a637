// Input of the audit-event list (zod, strict). GET /svc/v1/workspaces/:workspace_id/audit-events
// and the graph's `auditEvents` take the same filters.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery, type PageRequest } from "../../shared/pagination";
import { ACTOR_TYPES } from "../../shared/request-context";

/** A workspace's events, newest first: the chain's order (seq is unique within a workspace's chain). */
export const AUDIT_EVENT_LIST = new Keyset<{ seq: number }, Prisma.AuditEventWhereInput, Prisma.AuditEventOrderByWithRelationInput[]>(
  "audit_events",
  [{ field: "seq", dir: "desc", kind: "int" }],
  (e) => [e.seq],
);

const timestamp = z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp" }).transform((v) => new Date(v));
/** An action name, or a prefix ending in ".*" (`role_binding.*`). */
const actionFilter = z.string().max(200).regex(/^[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?$/, "must be an action such as role_binding.created, or a prefix such as role_binding.*");

export const auditEventFiltersSchema = z
  .object({
    actor_type: z.enum(ACTOR_TYPES).optional(),
    actor_id: z.string().min(1).max(2048).optional(),
    action: actionFilter.optional(),
    target_type: z.string().min(1).max(100).optional(),
    target_id: z.string().min(1).max(2048).optional(),
    outcome: z.enum(["success", "failure"]).optional(),
    since: timestamp.optional(),
    until: timestamp.optional(),
  })
  .strict();
export type AuditEventFilters = z.infer<typeof auditEventFiltersSchema>;

export const listAuditEventsQuerySchema = auditEventFiltersSchema.extend(pageQuery(AUDIT_EVENT_LIST)).strict();
export type ListAuditEventsQuery = AuditEventFilters & PageRequest;

/** The Prisma filter of the list's filters (the chain is added by the caller). */
export function auditEventWhere(f: AuditEventFilters): Prisma.AuditEventWhereInput {
  const action = f.action === undefined ? {} : f.action.endsWith(".*") ? { action: { startsWith: f.action.slice(0, -1) } } : { action: f.action };
  const time = f.since || f.until ? { occurredAt: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lt: f.until } : {}) } } : {};
  return {
    ...(f.actor_type ? { actorType: f.actor_type } : {}),
    ...(f.actor_id ? { actorId: f.actor_id } : {}),
    ...action,
    ...(f.target_type ? { targetType: f.target_type } : {}),
    ...(f.target_id ? { targetId: f.target_id } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...time,
  };
}
