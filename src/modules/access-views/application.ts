// The application (= resource server) an /svc/v1/applications/:id request names, scoped to the
// actor's workspace: another workspace's id, a deleted server and an unknown id are all 404.
import type { DbOrTx } from "../../storage";
import { notFound } from "../../shared/errors";

export interface ApplicationRow {
  id: string;
  tenantId: string;
  name: string;
  state: string;
  resourceUrl: string;
  scanGeneration: number;
}

export async function findApplication(db: DbOrTx, tenantId: string, id: string): Promise<ApplicationRow> {
  const row = await db.resourceServer.findFirst({
    where: { id, tenantId, deletedAt: null },
    select: { id: true, tenantId: true, name: true, state: true, resourceUrl: true, scanGeneration: true },
  });
  if (!row) throw notFound("application");
  return row;
}

/** The workspace's audit-chain head: every committed write of the workspace moves it (a policy revision). */
export async function auditHead(db: DbOrTx, tenantId: string): Promise<number> {
  const head = await db.auditEvent.findFirst({ where: { chain: tenantId }, orderBy: { seq: "desc" }, select: { seq: true } });
  return head?.seq ?? 0;
}
