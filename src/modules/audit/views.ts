// Wire view of an audit event (snake_case, docs/decisions/0011-wire-json-snake-case.md). The summary
// is stored as canonical JSON text (it is hashed as such) and parsed back here.
import type { AuditEvent } from "../../generated/sqlite/client";

export function toAuditEventView(e: AuditEvent) {
  return {
    id: e.id,
    seq: e.seq,
    workspace_id: e.tenantId,
    occurred_at: e.occurredAt.toISOString(),
    actor: { type: e.actorType, id: e.actorId },
    address: e.address,
    action: e.action,
    target: e.targetType === null ? null : { type: e.targetType, id: e.targetId },
    outcome: e.outcome,
    request_id: e.requestId,
    summary: JSON.parse(e.summary) as Record<string, unknown>,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}
export type AuditEventView = ReturnType<typeof toAuditEventView>;
