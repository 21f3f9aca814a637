// Which roles grant what, for the spec's "Active connection row" ("role and scopes granted"):
// - a user's authorization: the roles of the user's bindings that count now on the server (same
//   rule as the scope resolver: not expired, tenant-wide or scoped to this server) and grant at
//   least one of the scopes the authorization gave;
// - a pre-registered client: its service-account bindings' roles on the server, and the scopes it
//   holds now (its allowed scopes plus what those roles grant), for a whole page of clients in two
//   queries.
import type { DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { ScopeResolver } from "./scope-resolver";

export interface GrantingRole {
  role_id: string;
  role_name: string;
}

export interface ClientGrants {
  roles: GrantingRole[];
  scopes: string[];
}

export class GrantingRoles {
  constructor(
    private readonly db: DbOrTx,
    private readonly resolver: ScopeResolver,
    private readonly clock: Clock,
  ) {}

  /** The roles through which `userId` holds any of `scopes` on the server now, by name. */
  async forUser(tenantId: string, resourceServerId: string, userId: string, scopes: readonly string[]): Promise<GrantingRole[]> {
    const wanted = new Set(scopes);
    const bindings = await this.resolver.effectiveBindings({ tenantId, resourceServerId, subject: { type: "user", id: userId } });
    const roleIds = new Set<string>();
    for (const b of bindings) {
      if (roleIds.has(b.roleId)) continue;
      if ((await this.resolver.roleScopes(b.roleId, resourceServerId)).some((s) => wanted.has(s))) roleIds.add(b.roleId);
    }
    if (roleIds.size === 0) return [];
    const roles = await this.db.role.findMany({ where: { tenantId, id: { in: [...roleIds] } }, select: { id: true, name: true }, orderBy: { name: "asc" } });
    return roles.map((r) => ({ role_id: r.id, role_name: r.name }));
  }

  /**
   * For each pre-registered client (by row id, with its allowed scopes): its service-account roles
   * that count now on the server and the scopes it holds there now.
   */
  async forClients(tenantId: string, resourceServerId: string, clients: ReadonlyArray<{ id: string; allowedScopes: readonly string[] }>): Promise<Map<string, ClientGrants>> {
    const out = new Map<string, ClientGrants>();
    for (const c of clients) out.set(c.id, { roles: [], scopes: [...c.allowedScopes].sort() });
    if (clients.length === 0) return out;
    const now = this.clock.now();
    const bindings = await this.db.roleBinding.findMany({
      where: {
        tenantId,
        subjectType: "service_account",
        subjectId: { in: clients.map((c) => c.id) },
        AND: [
          { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
          { OR: [{ scopeType: null }, { scopeType: "*" }, { scopeType: "resource_server", scopeId: resourceServerId }] },
        ],
      },
      select: { subjectId: true, role: { select: { id: true, name: true, grants: { where: { resourceServerId }, select: { scopeKey: true } } } } },
      orderBy: [{ role: { name: "asc" } }, { id: "asc" }],
    });
    for (const b of bindings) {
      const grants = out.get(b.subjectId)!;
      if (!grants.roles.some((r) => r.role_id === b.role.id)) grants.roles.push({ role_id: b.role.id, role_name: b.role.name });
      grants.scopes = [...new Set([...grants.scopes, ...b.role.grants.map((g) => g.scopeKey)])].sort();
    }
    return out;
  }
}
