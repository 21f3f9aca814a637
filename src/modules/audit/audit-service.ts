// Reading a workspace's audit trail (owners, admins and read-only auditors). Writing needs no
// service: the unit of work appends (src/storage/unit-of-work.ts).
import type { Db } from "../../storage";
import { type Actor, assertCanRead, assertSameTenant } from "../../shared/actor";
import type { Page } from "../../shared/pagination";
import { AUDIT_EVENT_LIST, auditEventWhere, type ListAuditEventsQuery } from "./schemas";
import { toAuditEventView, type AuditEventView } from "./views";

export class AuditEventService {
  constructor(private readonly db: Db) {}

  /** One page of the workspace's events, newest first (AUDIT_EVENT_LIST). */
  async list(actor: Actor, workspaceId: string, query: ListAuditEventsQuery): Promise<Page<AuditEventView>> {
    assertSameTenant(actor, workspaceId);
    assertCanRead(actor);
    const rows = await this.db.auditEvent.findMany({
      where: AUDIT_EVENT_LIST.where({ chain: actor.tenantId, tenantId: actor.tenantId, ...auditEventWhere(query) }, query.cursor),
      orderBy: AUDIT_EVENT_LIST.orderBy,
      take: query.limit + 1,
    });
    return AUDIT_EVENT_LIST.page(rows, query.limit, toAuditEventView);
  }
}
