// Reads of a server's tools and scopes shared by the catalog, setup and runtime services.
import type { DbOrTx } from "../../../storage";
import type { PageRequest } from "../../../shared/pagination";
import { SCOPE_LIST, TOOL_LIST } from "./schemas";

const withScopeKeys = { scopes: { select: { scope: { select: { key: true } } } } } as const;

/** Every tool of the server, by name (the scope matrix, setup and runtime need them all). */
export async function loadTools(tx: DbOrTx, tenantId: string, rsId: string) {
  const rows = await tx.tool.findMany({
    where: { tenantId, resourceServerId: rsId },
    orderBy: TOOL_LIST.orderBy,
    include: withScopeKeys,
  });
  return rows.map(withKeys);
}
export type LoadedTool = Awaited<ReturnType<typeof loadTools>>[number];

function withKeys<T extends { scopes: { scope: { key: string } }[] }>({ scopes, ...tool }: T) {
  return { ...tool, scopeKeys: scopes.map((s) => s.scope.key).sort() };
}

/** One page of the server's tools (TOOL_LIST), `limit + 1` rows for Keyset.page. */
export async function loadToolsPage(tx: DbOrTx, tenantId: string, rsId: string, page: PageRequest): Promise<LoadedTool[]> {
  const rows = await tx.tool.findMany({
    where: TOOL_LIST.where({ tenantId, resourceServerId: rsId }, page.cursor),
    orderBy: TOOL_LIST.orderBy,
    include: withScopeKeys,
    take: page.limit + 1,
  });
  return rows.map(withKeys);
}

/** Every scope of the server, by scope id. */
export function loadScopes(tx: DbOrTx, tenantId: string, rsId: string) {
  return tx.scope.findMany({ where: { tenantId, resourceServerId: rsId }, orderBy: SCOPE_LIST.orderBy });
}

/** One page of the server's scopes (SCOPE_LIST), `limit + 1` rows for Keyset.page. */
export function loadScopesPage(tx: DbOrTx, tenantId: string, rsId: string, page: PageRequest) {
  return tx.scope.findMany({ where: SCOPE_LIST.where({ tenantId, resourceServerId: rsId }, page.cursor), orderBy: SCOPE_LIST.orderBy, take: page.limit + 1 });
}
