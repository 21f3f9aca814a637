// Roles: a name and the scopes the role grants on each resource server of the workspace.
// A grant may only name a live server of this workspace and scopes that server defines
// (Scope.key), so a role can never grant something the server does not know.
import type { Db, DbOrTx } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import { FIRST_PAGE, type Page, type PageRequest } from "../../shared/pagination";
import { ROLE_LIST, type RoleInput } from "./schemas";
import { toRoleView, type RoleView } from "./views";

const withGrants = { grants: { select: { resourceServerId: true, scopeKey: true } } } as const;

export class RoleService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** One page of the workspace's roles, by name (ROLE_LIST). */
  async list(actor: Actor, page: PageRequest = FIRST_PAGE): Promise<Page<RoleView>> {
    assertCanRead(actor);
    const rows = await this.db.role.findMany({
      where: ROLE_LIST.where({ tenantId: actor.tenantId }, page.cursor),
      include: withGrants,
      orderBy: ROLE_LIST.orderBy,
      take: page.limit + 1,
    });
    return ROLE_LIST.page(rows, page.limit, toRoleView);
  }

  async get(actor: Actor, id: string): Promise<RoleView> {
    assertCanRead(actor);
    return toRoleView(await this.find(this.db, actor, id));
  }

  async create(actor: Actor, input: RoleInput): Promise<RoleView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    // A new role is bound to nothing yet, so it cannot change any resolved scope.
    const role = await this.guardName(() =>
      this.db.$transaction(async (tx) => {
        await this.assertGrantsValid(tx, actor.tenantId, input.grants);
        const created = await tx.role.create({
          data: { id: this.ids.uuid(), tenantId: actor.tenantId, name: input.name, description: input.description ?? null, createdAt: now, updatedAt: now },
        });
        await this.writeGrants(tx, actor.tenantId, created.id, input.grants);
        return tx.role.findUniqueOrThrow({ where: { id: created.id }, include: withGrants });
      }),
    );
    return toRoleView(role);
  }

  /** PUT: name, description and grants are replaced as a whole. */
  async replace(actor: Actor, id: string, input: RoleInput): Promise<RoleView> {
    assertCanWrite(actor);
    const role = await this.guardName(() =>
      this.db.$transaction(async (tx) => {
        await this.find(tx, actor, id);
        await this.assertGrantsValid(tx, actor.tenantId, input.grants);
        await tx.role.update({ where: { id }, data: { name: input.name, description: input.description ?? null, updatedAt: this.clock.now() } });
        await tx.roleGrant.deleteMany({ where: { roleId: id } });
        await this.writeGrants(tx, actor.tenantId, id, input.grants);
        return tx.role.findUniqueOrThrow({ where: { id }, include: withGrants });
      }),
    );
    return toRoleView(role);
  }

  /** Refused (409, naming the users) while a binding or a server's access policy still uses the role. */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor, id);
      const [bindings, policies] = await Promise.all([
        tx.roleBinding.findMany({ where: { roleId: id }, select: { id: true }, orderBy: { createdAt: "asc" } }),
        tx.accessPolicy.findMany({ where: { defaultRoleId: id }, select: { resourceServerId: true } }),
      ]);
      if (bindings.length > 0 || policies.length > 0) {
        const uses = [
          bindings.length > 0 ? `${bindings.length} role binding(s)` : "",
          policies.length > 0 ? `the access policy of ${policies.length} resource server(s) as its default role` : "",
        ].filter(Boolean);
        throw conflict(`role is in use by ${uses.join(" and ")}; remove those first`, {
          binding_ids: bindings.map((b) => b.id),
          resource_server_ids: policies.map((p) => p.resourceServerId),
        });
      }
      await tx.role.delete({ where: { id } });
    });
  }

  /** The workspace's role, or 404 (another workspace's id looks unknown). */
  async find(tx: DbOrTx, actor: Actor, id: string) {
    const role = await tx.role.findFirst({ where: { id, tenantId: actor.tenantId }, include: withGrants });
    if (!role) throw notFound("role");
    return role;
  }

  private async assertGrantsValid(tx: DbOrTx, tenantId: string, grants: RoleInput["grants"]): Promise<void> {
    for (const [i, g] of grants.entries()) {
      const server = await tx.resourceServer.findFirst({ where: { id: g.resource_server_id, tenantId, deletedAt: null }, select: { id: true } });
      if (!server) throw badRequest(`grants.${i}.resource_server_id: no resource server ${g.resource_server_id} in this workspace`);
      const known = await tx.scope.findMany({ where: { resourceServerId: server.id, key: { in: g.scope_ids } }, select: { key: true } });
      const knownKeys = new Set(known.map((s) => s.key));
      const unknown = g.scope_ids.filter((s) => !knownKeys.has(s));
      if (unknown.length > 0) throw badRequest(`grants.${i}.scope_ids: unknown scope(s) ${unknown.map((s) => `"${s}"`).join(", ")} on resource server ${server.id}`);
    }
  }

  private async writeGrants(tx: DbOrTx, tenantId: string, roleId: string, grants: RoleInput["grants"]): Promise<void> {
    const rows = grants.flatMap((g) =>
      g.scope_ids.map((scopeKey) => ({ id: this.ids.uuid(), tenantId, roleId, resourceServerId: g.resource_server_id, scopeKey })),
    );
    if (rows.length > 0) await tx.roleGrant.createMany({ data: rows });
  }

  private async guardName<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict("a role with this name already exists in the workspace");
      throw e;
    }
  }

  /** For the transaction that deletes a scope of a server: its grants go (wired as the catalog's scope-deletion hook). */
  async removeDeletedScope(tx: DbOrTx, tenantId: string, resourceServerId: string, scopeKey: string): Promise<void> {
    await tx.roleGrant.deleteMany({ where: { tenantId, resourceServerId, scopeKey } });
  }
}
