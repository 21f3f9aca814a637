// Per-request DataLoaders for computed fields (counts, badges that need other rows, effective
// access, ...): each batches every parent in the operation into one tenant-scoped query, so a
// list of N servers costs one query per computed field instead of N. Add a loader here and read it
// in a type file as `ctx.loaders.<name>.load(key)`.
import DataLoader from "dataloader";
import type { Db } from "../storage";
import type { Actor } from "../shared/actor";
import { CLIENT_STATUSES, type ClientStatus } from "../modules/clients";

export interface ClientCounts {
  total: number;
  pending: number;
  approved: number;
  revoked: number;
}

function clientCountsLoader(db: Db, actor: Actor) {
  return new DataLoader<string, ClientCounts>(async (resourceServerIds) => {
    const rows = await db.client.groupBy({
      by: ["resourceServerId", "status"],
      where: { tenantId: actor.tenantId, resourceServerId: { in: [...resourceServerIds] } },
      _count: { _all: true },
    });
    const byServer = new Map<string, ClientCounts>(resourceServerIds.map((id) => [id, { total: 0, pending: 0, approved: 0, revoked: 0 }]));
    for (const row of rows) {
      const counts = row.resourceServerId ? byServer.get(row.resourceServerId) : undefined;
      if (!counts) continue;
      counts.total += row._count._all;
      if ((CLIENT_STATUSES as readonly string[]).includes(row.status)) counts[row.status as ClientStatus] += row._count._all;
    }
    return resourceServerIds.map((id) => byServer.get(id)!);
  });
}

export function createLoaders(db: Db, actor: Actor) {
  return {
    /** Clients per resource server by status (the Applications list shows them). */
    clientCounts: clientCountsLoader(db, actor),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
