// Access requests and agent connections (docs/enterprise-agents.md, docs/decisions/0049-access-requests.md).
// The first valid ID-JAG for a (client, user, server) without a decision creates one pending
// request; an administrator approves it (optionally narrowing the scopes or binding a role) or
// denies it with a reason; an approved request is the agent's connection, which can later be
// revoked. Tokens of a connection carry its family id (`fid`): revoking it enters the family in the
// access-token denylist (tokens module RevocationList), so they introspect inactive at once on every
// instance; each approval starts a new family.
//
// Hot path (the jwt-bearer grant): the connection's state is read from a per-entry cache
// ("agent_connection:<server>:<user>:<client_id>", dropped by the unit of work on every write to the
// row); last-connected stamps are batched in memory and written off the request path.
import { recordAuditEvent, isUniqueViolation, type Db, type DbOrTx, type Tx } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache } from "../../shared/entry-cache";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { PeriodicFlush } from "../../shared/periodic-flush";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { Page, PageRequest } from "../../shared/pagination";
import type { AccessRequest } from "../../generated/sqlite/client";
import { AUDIT_ACTIONS } from "../audit";
import { SYSTEM_ACTOR } from "../../shared/request-context";
import { ACCESS_REQUEST_LIST, type AccessRequestStatus, type ApproveAccessRequestInput, type DenyAccessRequestInput } from "./schemas";

export interface AgentConnectionFacts {
  id: string;
  tenantId: string;
  status: AccessRequestStatus;
  familyId: string;
  /** The approval's narrowing; null = none. */
  scopesGranted: readonly string[] | null;
}

export interface ConnectionAsk {
  tenantId: string;
  resourceServerId: string;
  clientId: string;
  userId: string;
  trustId: string;
  /** The trust's auto-approve groups: a member's first connection is approved at once. */
  autoApproveGroupIds?: readonly string[];
  scopes: readonly string[];
}

/** `decided_by` of a connection approved by a trust's auto-approve groups (the system, not a person). */
export const AUTO_APPROVER = "auto";

export interface AccessRequestView {
  id: string;
  workspace_id: string;
  resource_server_id: string;
  resource_server_name: string | null;
  client_id: string;
  client_name: string | null;
  user_id: string;
  user_email: string | null;
  /** Always "agent" here: a user's agent connected through an ID-JAG. */
  kind: "agent";
  status: AccessRequestStatus;
  scopes_requested: string[];
  scopes_granted: string[] | null;
  role_id: string | null;
  reason: string | null;
  decided_by: string | null;
  decided_at: string | null;
  last_connected_at: string | null;
  created_at: string;
}

/** Revokes a token family with a write of the caller in the same transaction (tokens module RevocationList.revokeFamily). */
export interface FamilyRevoker {
  revokeFamily(familyId: string, alsoInTx?: (tx: Tx) => Promise<unknown>): Promise<void>;
}

/** Binds a role to a user on one server in the caller's transaction (rbac). */
export interface ApprovalBindings {
  bindUserOnServer(tx: DbOrTx, g: { tenantId: string; roleId: string; userId: string; resourceServerId: string; source: string }): Promise<string>;
}

/** After an approval of a dcr/cimd client: its connection to the server (clients module), approved. */
export type ClientConnector = (a: { clientId: string; resourceServerId: string; tenantId: string; userId: string; scopes: readonly string[] }) => Promise<unknown>;

const key = (serverId: string, userId: string, clientId: string) => `${serverId}:${userId}:${clientId}`;

export class AccessRequestService {
  private readonly cache: EntryCache<AgentConnectionFacts>;
  private pendingStamps = new Map<string, Date>();
  private readonly stamps = new PeriodicFlush(() => this.flushStamps());

  constructor(
    private readonly db: Db,
    caches: CacheFactory,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly families: FamilyRevoker,
    private readonly bindings: ApprovalBindings,
    private readonly connectClient: ClientConnector,
  ) {
    // Key "<server id>:<user id>:<client_id>": both ids are UUIDs, so the first two colons split.
    this.cache = caches.create<AgentConnectionFacts>("agent_connection", async (k) => {
      const a = k.indexOf(":");
      const b = k.indexOf(":", a + 1);
      const row = await db.accessRequest.findUnique({ where: { clientId_userId_resourceServerId: { resourceServerId: k.slice(0, a), userId: k.slice(a + 1, b), clientId: k.slice(b + 1) } } });
      return row ? facts(row) : null;
    });
  }

  /**
   * The connection for the ask: its facts when one exists; else a new pending request (the first
   * valid ID-JAG). A concurrent first ask finds the winner's row.
   */
  async connectionFor(ask: ConnectionAsk): Promise<AgentConnectionFacts> {
    const k = key(ask.resourceServerId, ask.userId, ask.clientId);
    const known = await this.cache.get(k);
    if (known && known.tenantId === ask.tenantId) return known;
    if (known) throw badRequest("connection of another workspace"); // cannot happen: a server has one workspace
    const now = this.clock.now();
    try {
      const groups = ask.autoApproveGroupIds ?? [];
      const member =
        groups.length > 0 ? await this.db.groupMember.findFirst({ where: { tenantId: ask.tenantId, userId: ask.userId, groupId: { in: [...groups] } }, select: { groupId: true } }) : null;
      const data = {
        id: this.ids.uuid(),
        tenantId: ask.tenantId,
        resourceServerId: ask.resourceServerId,
        clientId: ask.clientId,
        userId: ask.userId,
        trustId: ask.trustId,
        status: "pending",
        scopesRequested: [...ask.scopes],
        familyId: this.ids.uuid(),
        createdAt: now,
        updatedAt: now,
      };
      if (!member) return facts(await this.db.accessRequest.create({ data }));
      // A member of an auto-approve group: the request is created approved, by the system, audited.
      const row = await this.db.$transaction(async (tx) => {
        const row = await tx.accessRequest.create({ data: { ...data, status: "approved", decidedBy: AUTO_APPROVER, decidedAt: now } });
        await recordAuditEvent(tx, {
          action: AUDIT_ACTIONS.accessRequestAutoApproved,
          actor: SYSTEM_ACTOR,
          workspaceId: ask.tenantId,
          target: { type: "access_request", id: row.id },
          detail: { client_id: ask.clientId, user_id: ask.userId, group_id: member.groupId, trust_id: ask.trustId },
        });
        return row;
      });
      await this.connectIfUnowned(row);
      return facts(row);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const row = await this.db.accessRequest.findUnique({ where: { clientId_userId_resourceServerId: { clientId: ask.clientId, userId: ask.userId, resourceServerId: ask.resourceServerId } } });
      if (!row) throw e;
      return facts(row);
    }
  }

  /** A token was issued through the connection: stamped in memory, written in batches. */
  markConnected(id: string): void {
    this.pendingStamps.set(id, this.clock.now());
  }

  flush(): Promise<void> {
    return this.stamps.flush();
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    this.stamps.start(intervalMs, onError);
  }

  stop(): Promise<void> {
    return this.stamps.stop();
  }

  private async flushStamps(): Promise<void> {
    if (this.pendingStamps.size === 0) return;
    const batch = [...this.pendingStamps];
    this.pendingStamps.clear();
    try {
      await this.db.$transaction(async (tx) => {
        for (const [id, at] of batch) await tx.accessRequest.updateMany({ where: { id }, data: { lastConnectedAt: at } });
      });
    } catch (e) {
      for (const [id, at] of batch) if (!this.pendingStamps.has(id)) this.pendingStamps.set(id, at);
      throw e;
    }
  }

  // ------------------------------------------------------------------ administration

  async list(actor: Actor, query: { status?: AccessRequestStatus } & PageRequest, resourceServerId?: string): Promise<Page<AccessRequestView>> {
    assertCanRead(actor);
    if (resourceServerId) {
      const server = await this.db.resourceServer.findFirst({ where: { id: resourceServerId, tenantId: actor.tenantId, deletedAt: null }, select: { id: true } });
      if (!server) throw notFound("resource server");
    }
    const base = { tenantId: actor.tenantId, ...(resourceServerId ? { resourceServerId } : {}), ...(query.status ? { status: query.status } : {}) };
    const rows = await this.db.accessRequest.findMany({ where: ACCESS_REQUEST_LIST.where(base, query.cursor), orderBy: ACCESS_REQUEST_LIST.orderBy, take: query.limit + 1 });
    const { rows: pageRows, next_cursor } = ACCESS_REQUEST_LIST.slice(rows, query.limit);
    const items = await this.views(this.db, pageRows);
    return { items, count: items.length, next_cursor };
  }

  async get(actor: Actor, id: string): Promise<AccessRequestView> {
    assertCanRead(actor);
    return (await this.views(this.db, [await this.find(this.db, actor, id)]))[0]!;
  }

  /** Approves a pending or denied request, or enables a revoked connection again (a new token family). */
  async approve(actor: Actor, id: string, input: ApproveAccessRequestInput): Promise<AccessRequestView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.find(tx, actor, id);
      if (current.status === "approved") throw conflict("the access request is already approved");
      if (input.role_id) {
        const role = await tx.role.findFirst({ where: { id: input.role_id, tenantId: actor.tenantId }, select: { id: true } });
        if (!role) throw badRequest(`role_id: no role ${input.role_id} in this workspace`);
        await this.bindings.bindUserOnServer(tx, { tenantId: actor.tenantId, roleId: input.role_id, userId: current.userId, resourceServerId: current.resourceServerId, source: "access_request" });
      }
      const now = this.clock.now();
      const updated = await tx.accessRequest.update({
        where: { id },
        data: {
          status: "approved",
          scopesGranted: input.scopes ? [...new Set(input.scopes)] : undefined,
          roleId: input.role_id ?? current.roleId,
          reason: null,
          // A connection revoked before gets a new family: the old one stays in the denylist.
          familyId: current.status === "revoked" ? this.ids.uuid() : current.familyId,
          decidedBy: actor.userId,
          decidedAt: now,
          updatedAt: now,
        },
      });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.accessRequestApproved, target: { type: "access_request", id }, detail: { scopes: input.scopes ?? null, role_id: input.role_id ?? null, client_id: current.clientId } });
      return updated;
    });
    await this.connectIfUnowned(row);
    return (await this.views(this.db, [row]))[0]!;
  }

  /** After an approval of a dcr/cimd client (no workspace of its own): its connection to the server. */
  private async connectIfUnowned(row: AccessRequest): Promise<void> {
    const client = await this.db.client.findUnique({ where: { clientId: row.clientId }, select: { tenantId: true } });
    if (client && client.tenantId === null) {
      await this.connectClient({ clientId: row.clientId, resourceServerId: row.resourceServerId, tenantId: row.tenantId, userId: row.userId, scopes: (row.scopesGranted as string[] | null) ?? (row.scopesRequested as string[]) });
    }
  }

  async deny(actor: Actor, id: string, input: DenyAccessRequestInput): Promise<AccessRequestView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.find(tx, actor, id);
      if (current.status !== "pending") throw conflict(`only a pending access request can be denied (this one is ${current.status}); revoke an approved connection instead`);
      const now = this.clock.now();
      const updated = await tx.accessRequest.update({ where: { id }, data: { status: "denied", reason: input.reason, decidedBy: actor.userId, decidedAt: now, updatedAt: now } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.accessRequestDenied, target: { type: "access_request", id }, detail: { reason: input.reason, client_id: current.clientId } });
      return updated;
    });
    return (await this.views(this.db, [row]))[0]!;
  }

  /** Revokes an approved connection: its tokens introspect inactive at once, on every instance. */
  async revoke(actor: Actor, id: string): Promise<AccessRequestView> {
    assertCanWrite(actor);
    const current = await this.find(this.db, actor, id);
    if (current.status !== "approved") throw conflict(`only an approved connection can be revoked (this one is ${current.status})`);
    await this.families.revokeFamily(current.familyId, async (tx) => {
      const now = this.clock.now();
      await tx.accessRequest.update({ where: { id }, data: { status: "revoked", decidedBy: actor.userId, decidedAt: now, updatedAt: now } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.agentConnectionRevoked, target: { type: "access_request", id }, detail: { client_id: current.clientId } });
    });
    return this.get(actor, id);
  }

  private async find(tx: DbOrTx, actor: Actor, id: string): Promise<AccessRequest> {
    const row = await tx.accessRequest.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!row) throw notFound("access request");
    return row;
  }

  /** Views with three queries whatever their number: the servers, clients and users named. */
  private async views(db: DbOrTx, rows: readonly AccessRequest[]): Promise<AccessRequestView[]> {
    if (rows.length === 0) return [];
    const tenantId = rows[0]!.tenantId;
    const [servers, clients, users] = await Promise.all([
      db.resourceServer.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.resourceServerId))] }, tenantId }, select: { id: true, name: true } }),
      db.client.findMany({ where: { clientId: { in: [...new Set(rows.map((r) => r.clientId))] } }, select: { clientId: true, clientName: true } }),
      db.user.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.userId))] }, tenantId }, select: { id: true, email: true } }),
    ]);
    return rows.map((r) => ({
      id: r.id,
      workspace_id: r.tenantId,
      resource_server_id: r.resourceServerId,
      resource_server_name: servers.find((s) => s.id === r.resourceServerId)?.name ?? null,
      client_id: r.clientId,
      client_name: clients.find((c) => c.clientId === r.clientId)?.clientName ?? null,
      user_id: r.userId,
      user_email: users.find((u) => u.id === r.userId)?.email ?? null,
      kind: "agent",
      status: r.status as AccessRequestStatus,
      scopes_requested: r.scopesRequested as string[],
      scopes_granted: (r.scopesGranted as string[] | null) ?? null,
      role_id: r.roleId,
      reason: r.reason,
      decided_by: r.decidedBy,
      decided_at: r.decidedAt?.toISOString() ?? null,
      last_connected_at: r.lastConnectedAt?.toISOString() ?? null,
      created_at: r.createdAt.toISOString(),
    }));
  }
}

function facts(row: AccessRequest): AgentConnectionFacts {
  return { id: row.id, tenantId: row.tenantId, status: row.status as AccessRequestStatus, familyId: row.familyId, scopesGranted: (row.scopesGranted as string[] | null) ?? null };
}
