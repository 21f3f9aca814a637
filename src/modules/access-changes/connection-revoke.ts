// The `connection_revoke` change: revoking a client on this application (POST
// /svc/resource-servers/:id/clients/:client_id/revoke). A dcr/cimd client loses its connection to
// this application only; a pre-registered client of the application is revoked (docs/decisions/
// 0020-connections.md). Either way introspection answers inactive for its tokens at the application
// from the commit on (tokens clientMayReach), so what its users could call THROUGH IT is lost at
// once, whatever they hold; their access through other clients is untouched.
//
// Who the users are: access tokens are not stored, so the preview names the users the data knows
// used the client here: live (unrevoked, unexpired) refresh tokens of the client for the
// application, remembered consents to it for the application, and the connection's last user.
// A user who only holds an access token and none of those is not listed (their token dies too).
import type { Db } from "../../storage";
import { notFound } from "../../shared/errors";
import type { ScopeResolver } from "../rbac";
import { clientMayReach, type TokenClient, type TokenConnection } from "../tokens";
import { hasOwnTokens, type ServiceAccount } from "./service-accounts";

export interface ClientLookups {
  /** The client as introspection sees it (null: unknown or revoked): the clients registry. */
  client(clientId: string): TokenClient | null | Promise<TokenClient | null>;
  connection(clientId: string, resourceServerId: string): TokenConnection | null | Promise<TokenConnection | null>;
}

export interface RevokedClient {
  client_id: string;
  client_name: string;
  registration_mode: string;
  /** What the change revokes: the client's connection to this application (dcr/cimd), or the client itself (pre-registered). */
  revokes: "connection" | "client";
  /** Whether its tokens work at the application now (false: revoked or not approved already; nothing changes). */
  works_now: boolean;
  /** Users known to use the client here (see the header), at most `limit`. */
  users_known: number;
}

export interface RevokePlan {
  client: RevokedClient;
  users: string[];
  /** Some source had more users than the preview evaluates. */
  capped: boolean;
  /** What a user's token of this client is worth at the application now (null: nothing). */
  throughClient(userId: string): Promise<ReadonlySet<string> | null>;
  /** The client's own service account, for a pre-registered client (its client_credentials tokens die too). */
  serviceAccount: ServiceAccount | null;
}

export async function planConnectionRevoke(
  deps: { db: Db; resolver: ScopeResolver; clock: { now(): Date } } & ClientLookups,
  app: { id: string; tenantId: string; resourceUrl: string },
  clientId: string,
  limit: number,
): Promise<RevokePlan> {
  const { db } = deps;
  // The revoke endpoint's own lookup (ClientService.findAny): the application's pre-registered client, or a dcr/cimd client connected to it here.
  const row = await db.client.findUnique({
    where: { clientId },
    select: {
      id: true,
      clientId: true,
      clientName: true,
      registrationMode: true,
      tenantId: true,
      resourceServerId: true,
      status: true,
      allowedScopes: true,
      grantTypes: true,
      connections: { where: { resourceServerId: app.id, tenantId: app.tenantId }, select: { status: true, lastUserId: true }, take: 1 },
    },
  });
  const prereg = !!row && row.tenantId === app.tenantId && row.resourceServerId === app.id;
  const connection = row && row.tenantId === null ? (row.connections[0] ?? null) : null;
  if (!row || (!prereg && !connection)) throw notFound("client");
  const given = await deps.client(row.clientId);
  const facts = given?.tenantId === null ? await deps.connection(given.clientId, app.id) : null;
  const worksNow = clientMayReach({ id: app.id }, app.tenantId, given, facts);

  const now = deps.clock.now();
  const [consents, refresh] = await Promise.all([
    db.rememberedConsent.findMany({ where: { tenantId: app.tenantId, clientId: row.clientId, resourceServerId: app.id }, select: { userId: true }, orderBy: { userId: "asc" }, take: limit + 1 }),
    db.refreshToken.groupBy({
      by: ["userId"],
      where: { tenantId: app.tenantId, clientId: row.clientId, resource: app.resourceUrl, revokedAt: null, expiresAt: { gt: now } },
      orderBy: { userId: "asc" },
      take: limit + 1,
    }),
  ]);
  const users = new Set<string>([...consents.map((c) => c.userId), ...refresh.map((r) => r.userId)]);
  if (connection?.lastUserId) users.add(connection.lastUserId);
  const capped = consents.length > limit || refresh.length > limit;
  const list = [...users].sort().slice(0, limit);

  const allowed = new Set(Array.isArray(row.allowedScopes) ? (row.allowedScopes as string[]) : []);
  return {
    client: { client_id: row.clientId, client_name: row.clientName, registration_mode: row.registrationMode, revokes: prereg ? "client" : "connection", works_now: worksNow, users_known: list.length },
    users: list,
    capped: capped || users.size > limit,
    throughClient: async (userId) => (worksNow && given ? deps.resolver.allowedScopes({ sub: userId, tenant_id: app.tenantId, sub_type: "user" }, given, { id: app.id }) : null),
    serviceAccount: prereg && hasOwnTokens(row.grantTypes) ? { rowId: row.id, clientId: row.clientId, allowed, workspaceWide: false, reachable: worksNow, reachableAfter: false } : null,
  };
}
