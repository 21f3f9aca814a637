// Service accounts in change previews: a workspace's pre-registered client holds its allowed scopes
// plus what its service-account bindings grant (rbac ScopeResolver, subject "client"), and reaches
// an application only as introspection's client rule allows (tokens clientMayReach: approved, of
// the workspace, bound to no server or to this one). dcr/cimd clients belong to no workspace and
// have no service account (docs/decisions/0020-connections.md).
//
// What a client's own tokens are worth is what the client_credentials grant may issue, as
// introspection then confirms (oauth/grants/client-credentials.ts): a client registered for one
// application gets a subset of its allowed scopes, whatever its bindings (introspection keeps the
// token's scopes it still holds, and it holds its allowed scopes); a workspace-wide client (an
// agent, docs/decisions/0040-agents.md) gets what its service-account bindings grant there.
import type { Db } from "../../storage";
import { notFound } from "../../shared/errors";
import { isUuid } from "../../shared/ids";
import type { ScopeResolver } from "../rbac";
import { clientMayReach, type TokenClient } from "../tokens";

export interface ServiceAccount {
  /** The client row's id: the subject id of its bindings. */
  rowId: string;
  /** The OAuth client_id. */
  clientId: string;
  allowed: ReadonlySet<string>;
  /** Bound to no one application (an agent's client): its bindings decide. */
  workspaceWide: boolean;
  reachable: boolean;
  /** false when the change revokes the client. */
  reachableAfter: boolean;
}

const SELECT = { id: true, clientId: true, tenantId: true, resourceServerId: true, status: true, allowedScopes: true, grantTypes: true } as const;
type Row = { id: string; clientId: string; tenantId: string | null; resourceServerId: string | null; status: string; allowedScopes: unknown; grantTypes: unknown };

/** Whether the client gets tokens of its own at all (a human_app or cli client acts only for users). */
export const hasOwnTokens = (grantTypes: unknown) => Array.isArray(grantTypes) && grantTypes.includes("client_credentials");

function toAccount(row: Row, app: { id: string; tenantId: string }): ServiceAccount {
  const allowed = new Set(Array.isArray(row.allowedScopes) ? (row.allowedScopes as string[]) : []);
  const client: TokenClient = { id: row.id, clientId: row.clientId, tenantId: row.tenantId, resourceServerId: row.resourceServerId, status: row.status, allowedScopeSet: allowed };
  const reachable = hasOwnTokens(row.grantTypes) && clientMayReach({ id: app.id }, app.tenantId, client, null);
  return { rowId: row.id, clientId: row.clientId, allowed, workspaceWide: row.resourceServerId === null, reachable, reachableAfter: reachable };
}

/** The workspace's client named by its OAuth client_id or row id (as the bindings API finds it); 404 otherwise. */
export async function findServiceAccount(db: Db, app: { id: string; tenantId: string }, idOrClientId: string): Promise<ServiceAccount> {
  const found = await serviceAccount(db, app, idOrClientId);
  if (!found) throw notFound("client");
  return found;
}

/** The same, null when there is no such client (a binding left behind by a deleted client reaches nobody). */
export async function serviceAccount(db: Db, app: { id: string; tenantId: string }, idOrClientId: string): Promise<ServiceAccount | null> {
  const row = await db.client.findFirst({ where: { tenantId: app.tenantId, OR: [{ clientId: idOrClientId }, ...(isUuid(idOrClientId) ? [{ id: idOrClientId }] : [])] }, select: SELECT });
  return row ? toAccount(row, app) : null;
}

/** The service accounts bound to `roleId` (directly: a client is never a group member). */
export async function serviceAccountHolders(db: Db, app: { id: string; tenantId: string }, roleId: string): Promise<ServiceAccount[]> {
  const ids = (await db.roleBinding.findMany({ where: { tenantId: app.tenantId, roleId, subjectType: "service_account" }, select: { subjectId: true } })).map((b) => b.subjectId);
  if (ids.length === 0) return [];
  const rows = await db.client.findMany({ where: { tenantId: app.tenantId, id: { in: [...new Set(ids)] } }, select: SELECT, orderBy: { clientId: "asc" } });
  return rows.map((r) => toAccount(r, app));
}

/**
 * The workspace's clients that may reach the application (pre-registered for it or for no one
 * server): what a tool or scope change can touch. Bounded by the application's own clients.
 */
export async function applicationServiceAccounts(db: Db, app: { id: string; tenantId: string }): Promise<ServiceAccount[]> {
  const rows = await db.client.findMany({
    where: { tenantId: app.tenantId, status: "approved", OR: [{ resourceServerId: app.id }, { resourceServerId: null }] },
    select: SELECT,
    orderBy: { clientId: "asc" },
  });
  return rows.map((r) => toAccount(r, app));
}

/** What the client's own tokens (client_credentials) are worth on the application: null when it gets none there. */
export async function clientScopes(resolver: ScopeResolver, app: { id: string; tenantId: string }, sa: ServiceAccount, reachable: boolean): Promise<ReadonlySet<string> | null> {
  if (!reachable) return null;
  if (!sa.workspaceWide) return sa.allowed;
  return resolver.scopesFor({ tenantId: app.tenantId, resourceServerId: app.id, subject: { type: "client", clientId: sa.clientId, internalId: sa.rowId, allowedScopes: sa.allowed } });
}
