// Role bindings: a role given to a user, a group or a client acting as a service account, either
// tenant-wide or on one resource server, optionally until an expiry. Every write drops the
// subject's cached bindings after commit (unit of work, docs/decisions/0001-per-entry-caches.md);
// expiry needs no write (the resolver compares with the clock per call).
import type { Prisma } from "../../generated/sqlite/client";
import type { Db, DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, forbidden, notFound } from "../../shared/errors";
import { isUuid } from "../../shared/ids";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import { FIRST_PAGE, type Page, type PageRequest } from "../../shared/pagination";
import { ROLE_BINDING_LIST, type CreateBindingInput } from "./schemas";
import { toRoleBindingView, type RoleBindingView } from "./views";

/** Who a binding is for, as the paths name them. A client is named by its OAuth client_id (or internal id). */
export type BindingSubject = { type: "group"; id: string } | { type: "user"; id: string } | { type: "service_account"; clientId: string };

export class BindingService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(actor: Actor, subject: BindingSubject, input: CreateBindingInput): Promise<RoleBindingView> {
    assertCanWrite(actor);
    // The body's tenant must be the token's (spec: "/uflow/v2 ... tenant-from-token validation").
    if (input.tenantId !== actor.tenantId) throw forbidden("tenant_id does not match the token's workspace");
    const now = this.clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw badRequest("expires_at: must be in the future");
    const row = await this.db.$transaction(async (tx) => {
      const subjectId = await this.subjectId(tx, actor, subject);
      const role = await tx.role.findFirst({ where: { id: input.roleId, tenantId: actor.tenantId }, select: { id: true } });
      if (!role) throw badRequest(`role_id: no role ${input.roleId} in this workspace`);
      if (input.scopeType === "resource_server") {
        const rs = await tx.resourceServer.findFirst({ where: { id: input.scopeId!, tenantId: actor.tenantId, deletedAt: null }, select: { id: true } });
        if (!rs) throw badRequest(`scope_id: no resource server ${input.scopeId} in this workspace`);
      }
      const created = await tx.roleBinding.create({
        data: {
          id: this.ids.uuid(),
          tenantId: actor.tenantId,
          roleId: input.roleId,
          subjectType: subject.type,
          subjectId,
          scopeType: input.scopeType,
          scopeId: input.scopeId,
          // Stored as given (spec); undefined leaves the column NULL.
          conditions: (input.conditions ?? undefined) as Prisma.InputJsonObject | undefined,
          expiresAt: input.expiresAt,
          source: "api",
          createdAt: now,
          createdBy: actor.userId,
        },
      });
      return created;
    });
    return toRoleBindingView(row);
  }

  /** One page of the subject's own bindings (not those inherited through groups), expired ones included, oldest first (ROLE_BINDING_LIST). */
  async listFor(actor: Actor, subject: BindingSubject, page: PageRequest = FIRST_PAGE): Promise<Page<RoleBindingView>> {
    assertCanRead(actor);
    const subjectId = await this.subjectId(this.db, actor, subject);
    const rows = await this.db.roleBinding.findMany({
      where: ROLE_BINDING_LIST.where({ tenantId: actor.tenantId, subjectType: subject.type, subjectId }, page.cursor),
      orderBy: ROLE_BINDING_LIST.orderBy,
      take: page.limit + 1,
    });
    return ROLE_BINDING_LIST.page(rows, page.limit, toRoleBindingView);
  }

  async get(actor: Actor, id: string): Promise<RoleBindingView> {
    assertCanRead(actor);
    return toRoleBindingView(await this.find(this.db, actor, id));
  }

  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor, id);
      await tx.roleBinding.delete({ where: { id } });
    });
  }

  /**
   * For an agent's transaction (modules/agents): the roles its client's service account holds,
   * each on one server, replaced by `grants`. A role or server not in the workspace is a 400
   * naming it (field `access`).
   */
  async replaceServiceAccountBindings(tx: DbOrTx, actor: Actor, clientRowId: string, grants: readonly { resourceServerId: string; roleId: string }[]): Promise<void> {
    const roleIds = [...new Set(grants.map((g) => g.roleId))];
    const serverIds = [...new Set(grants.map((g) => g.resourceServerId))];
    const roles = new Set((await tx.role.findMany({ where: { id: { in: roleIds }, tenantId: actor.tenantId }, select: { id: true } })).map((r) => r.id));
    const missingRole = roleIds.find((id) => !roles.has(id));
    if (missingRole) throw badRequest(`access: no role ${missingRole} in this workspace`);
    const servers = new Set((await tx.resourceServer.findMany({ where: { id: { in: serverIds }, tenantId: actor.tenantId, deletedAt: null }, select: { id: true } })).map((s) => s.id));
    const missingServer = serverIds.find((id) => !servers.has(id));
    if (missingServer) throw badRequest(`access: no resource server ${missingServer} in this workspace`);
    await tx.roleBinding.deleteMany({ where: { tenantId: actor.tenantId, subjectType: "service_account", subjectId: clientRowId } });
    if (grants.length === 0) return;
    const now = this.clock.now();
    await tx.roleBinding.createMany({
      data: grants.map((g) => ({
        id: this.ids.uuid(),
        tenantId: actor.tenantId,
        roleId: g.roleId,
        subjectType: "service_account",
        subjectId: clientRowId,
        scopeType: "resource_server",
        scopeId: g.resourceServerId,
        source: "api",
        createdAt: now,
        createdBy: actor.userId,
      })),
    });
  }

  /** For the transaction that removes a member from the workspace (tenancy's hook, wired in app.ts). */
  async removeUserBindings(tx: DbOrTx, tenantId: string, userId: string): Promise<void> {
    await tx.roleBinding.deleteMany({ where: { tenantId, subjectType: "user", subjectId: userId } });
  }

  /**
   * The first-time-user grant of a server's access policy, in the sign-in's transaction: the
   * default role on that one server (source "first_time_grant"). Returns the binding id.
   */
  async grantFirstTime(tx: DbOrTx, g: { tenantId: string; roleId: string; userId: string; resourceServerId: string }): Promise<string> {
    const binding = await tx.roleBinding.create({
      data: {
        id: this.ids.uuid(),
        tenantId: g.tenantId,
        roleId: g.roleId,
        subjectType: "user",
        subjectId: g.userId,
        scopeType: "resource_server",
        scopeId: g.resourceServerId,
        source: "first_time_grant",
        createdAt: this.clock.now(),
      },
      select: { id: true },
    });
    return binding.id;
  }

  /** A role on one server bound to a user by an administrator's approval of an access request (source names it). */
  async bindUserOnServer(tx: DbOrTx, g: { tenantId: string; roleId: string; userId: string; resourceServerId: string; source: string }): Promise<string> {
    const existing = await tx.roleBinding.findFirst({ where: { tenantId: g.tenantId, roleId: g.roleId, subjectType: "user", subjectId: g.userId, scopeType: "resource_server", scopeId: g.resourceServerId }, select: { id: true } });
    if (existing) return existing.id;
    const binding = await tx.roleBinding.create({
      data: { id: this.ids.uuid(), tenantId: g.tenantId, roleId: g.roleId, subjectType: "user", subjectId: g.userId, scopeType: "resource_server", scopeId: g.resourceServerId, source: g.source, createdAt: this.clock.now() },
      select: { id: true },
    });
    return binding.id;
  }

  private async find(tx: DbOrTx, actor: Actor, id: string) {
    const b = await tx.roleBinding.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!b) throw notFound("role binding");
    return b;
  }

  /** The stored subject id, or 404 when the path names no such subject in this workspace. */
  private async subjectId(tx: DbOrTx, actor: Actor, subject: BindingSubject): Promise<string> {
    const tenantId = actor.tenantId;
    switch (subject.type) {
      case "group": {
        const g = await tx.group.findFirst({ where: { id: subject.id, tenantId }, select: { id: true } });
        if (!g) throw notFound("group");
        return g.id;
      }
      case "user": {
        const m = await tx.membership.findUnique({ where: { tenantId_userId: { tenantId, userId: subject.id } }, select: { userId: true } });
        if (!m) throw notFound("user");
        return m.userId;
      }
      case "service_account": {
        // The clients module owns this table; only an existence check scoped by workspace is made here.
        const c = await tx.client.findFirst({
          where: { tenantId, OR: [{ clientId: subject.clientId }, ...(isUuid(subject.clientId) ? [{ id: subject.clientId }] : [])] },
          select: { id: true },
        });
        if (!c) throw notFound("client");
        return c.id;
      }
    }
  }
}
