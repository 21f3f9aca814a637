// The audit trail on the graph: `auditEvents`, one page of the caller's workspace's events, newest
// first, with the REST list's filters (GET /svc/v1/workspaces/:workspace_id/audit-events), through
// the same service (owners, admins and read-only auditors).
import { AUDIT_EVENT_LIST, auditEventFiltersSchema, type AuditEventView } from "../../modules/audit";
import { builder } from "../builder";
import { parseArg, toWire } from "../validation";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

const AuditEventRef = builder.objectRef<AuditEventView>("AuditEvent").implement({
  description: "One audit event (docs/audit-and-integrations.md): who did what, to what, from where, with what outcome; hash-chained per workspace.",
  fields: (t) => ({
    id: t.exposeID("id"),
    seq: t.exposeInt("seq", { description: "Position in the workspace's chain." }),
    occurredAt: t.field({ type: "DateTime", resolve: (e) => new Date(e.occurred_at) }),
    actorType: t.string({ resolve: (e) => e.actor.type }),
    actorId: t.string({ nullable: true, resolve: (e) => e.actor.id }),
    address: t.exposeString("address", { nullable: true }),
    action: t.exposeString("action"),
    targetType: t.string({ nullable: true, resolve: (e) => e.target?.type ?? null }),
    targetId: t.string({ nullable: true, resolve: (e) => e.target?.id ?? null }),
    outcome: t.exposeString("outcome"),
    requestId: t.exposeString("request_id", { nullable: true }),
    summary: t.string({ description: "What changed (before/after, never a secret) and the event's details, as JSON text.", resolve: (e) => JSON.stringify(e.summary) }),
    prevHash: t.exposeString("prev_hash"),
    hash: t.exposeString("hash"),
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (e) => AUDIT_EVENT_LIST.cursorAfter(e) }),
  }),
});

const AuditEventFilterInput = builder.inputType("AuditEventFilter", {
  fields: (t) => ({
    actorType: t.string(),
    actorId: t.string(),
    action: t.string({ description: "An action (role_binding.created) or a prefix (role_binding.*)." }),
    targetType: t.string(),
    targetId: t.string(),
    outcome: t.string({ description: "success or failure" }),
    since: t.field({ type: "DateTime" }),
    until: t.field({ type: "DateTime" }),
  }),
});

builder.queryField("auditEvents", (t) =>
  t.field({
    type: [AuditEventRef],
    description: "The workspace's audit trail, newest first (one page: first, after).",
    args: { filter: t.arg({ type: AuditEventFilterInput, required: false }), ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const wire = toWire({ ...(args.filter ?? {}) });
      for (const k of ["since", "until"]) if (wire[k] instanceof Date) wire[k] = (wire[k] as Date).toISOString();
      const filters = parseArg(auditEventFiltersSchema, wire, "filter");
      const page = await ctx.services.audit.events.list(ctx.actor, ctx.actor.tenantId, { ...filters, ...pageOf(AUDIT_EVENT_LIST, args) });
      return page.items;
    },
  }),
);
