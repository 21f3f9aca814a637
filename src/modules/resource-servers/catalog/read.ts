// Reads of a server's tools and scopes shared by the catalog, setup and runtime services.
import type { DbOrTx } from "../../../storage";

export async function loadTools(tx: DbOrTx, tenantId: string, rsId: string) {
  const rows = await tx.tool.findMany({
    where: { tenantId, resourceServerId: rsId },
    orderBy: { name: "asc" },
    include: { scopes: { select: { scope: { select: { key: true } } } } },
  });
  return rows.map(({ scopes, ...tool }) => ({ ...tool, scopeKeys: scopes.map((s) => s.scope.key).sort() }));
}
export type LoadedTool = Awaited<ReturnType<typeof loadTools>>[number];

export function loadScopes(tx: DbOrTx, tenantId: string, rsId: string) {
  return tx.scope.findMany({ where: { tenantId, resourceServerId: rsId }, orderBy: { key: "asc" } });
}
