// The access-review rows of one application, read page by page (users by id, a bounded page at a
// time) so an export of any size holds one page in memory. Rows come out in one deterministic
// order: user_id, role_id, scope_id, tool_name, binding_id. The same database state gives the same
// rows, byte for byte, whenever it is read (nothing here reads the clock but `asOfMs`, which only
// decides whether a binding with expires_at has expired).
//
// The rules are the scope resolver's (rbac scope-resolver.ts): a binding reaches the application
// when it is of the workspace, not expired, and tenant-wide (scope_type null or "*") or scoped to
// this very server; its role's grants on this server are the scopes it gives; a scope unlocks the
// tools mapped to it. `access_effective` is false when the membership is not active or the end user
// is suspended (the resolver then grants nothing), so an auditor sees dormant grants too.
import type { Db } from "../../storage";

export const COLUMNS = [
  "user_id",
  "user_email",
  "membership_status",
  "end_user_status",
  "access_effective",
  "granted_through",
  "binding_id",
  "binding_expires_at",
  "role_id",
  "role_name",
  "scope_id",
  "tool_name",
] as const;
export type Column = (typeof COLUMNS)[number];
export type AccessRow = { [K in Column]: K extends "access_effective" ? boolean : string | null };

/** Users read per page. */
export const USER_PAGE = 500;

interface BindingFacts {
  id: string;
  roleId: string;
  scopeType: string | null;
  scopeId: string | null;
  expiresAt: Date | null;
}

interface RoleFacts {
  name: string;
  scopes: string[];
}

export interface ApplicationFacts {
  /** scope key -> names of the (non-public) tools mapped to it, sorted. */
  toolsByScope: Map<string, string[]>;
  publicTools: string[];
}

/** The application's scope -> tool map (one query; the catalog of one server is small). */
export async function applicationFacts(db: Db, tenantId: string, rsId: string): Promise<ApplicationFacts> {
  const [mappings, publicTools] = await Promise.all([
    db.toolScope.findMany({ where: { tenantId, resourceServerId: rsId }, select: { scope: { select: { key: true } }, tool: { select: { name: true, isPublic: true } } } }),
    db.tool.findMany({ where: { tenantId, resourceServerId: rsId, isPublic: true }, select: { name: true } }),
  ]);
  const toolsByScope = new Map<string, string[]>();
  for (const m of mappings) {
    if (m.tool.isPublic) continue; // anyone may call a public tool: listed once in the manifest, not per user
    const list = toolsByScope.get(m.scope.key) ?? [];
    list.push(m.tool.name);
    toolsByScope.set(m.scope.key, list);
  }
  for (const list of toolsByScope.values()) list.sort(compare);
  return { toolsByScope, publicTools: publicTools.map((t) => t.name).sort(compare) };
}

/** Code-unit order: the same on every machine and locale (never localeCompare). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The rows, one page of users at a time, in the export's order. */
export async function* accessRows(db: Db, tenantId: string, rsId: string, asOfMs: number, app: ApplicationFacts, pageSize = USER_PAGE): AsyncGenerator<AccessRow[]> {
  const groupBindings = new Map<string, BindingFacts[]>();
  const roles = new Map<string, RoleFacts | null>();
  const reaches = (b: BindingFacts) =>
    (b.expiresAt === null || b.expiresAt.getTime() > asOfMs) && (b.scopeType === null || b.scopeType === "*" || (b.scopeType === "resource_server" && b.scopeId === rsId));
  const bindingSelect = { id: true, roleId: true, scopeType: true, scopeId: true, expiresAt: true, subjectId: true } as const;
  let after: string | undefined;
  for (;;) {
    const members = await db.membership.findMany({
      where: { tenantId, ...(after === undefined ? {} : { userId: { gt: after } }) },
      orderBy: { userId: "asc" },
      take: pageSize,
      select: { userId: true, status: true },
    });
    if (members.length === 0) return;
    after = members[members.length - 1]!.userId;
    const ids = members.map((m) => m.userId);
    const [users, endUsers, groupMembers, direct] = await Promise.all([
      db.user.findMany({ where: { tenantId, id: { in: ids } }, select: { id: true, email: true } }),
      db.endUserState.findMany({ where: { tenantId, userId: { in: ids } }, select: { userId: true, status: true } }),
      db.groupMember.findMany({ where: { tenantId, userId: { in: ids } }, select: { groupId: true, userId: true } }),
      db.roleBinding.findMany({ where: { tenantId, subjectType: "user", subjectId: { in: ids } }, select: bindingSelect }),
    ]);
    const unseenGroups = [...new Set(groupMembers.map((g) => g.groupId))].filter((g) => !groupBindings.has(g));
    if (unseenGroups.length > 0) {
      for (const g of unseenGroups) groupBindings.set(g, []);
      const rows = await db.roleBinding.findMany({ where: { tenantId, subjectType: "group", subjectId: { in: unseenGroups } }, select: bindingSelect });
      for (const b of rows) groupBindings.get(b.subjectId)!.push(b);
    }
    const directByUser = new Map<string, BindingFacts[]>();
    for (const b of direct) directByUser.set(b.subjectId, [...(directByUser.get(b.subjectId) ?? []), b]);
    const groupsByUser = new Map<string, string[]>();
    for (const g of groupMembers) groupsByUser.set(g.userId, [...(groupsByUser.get(g.userId) ?? []), g.groupId]);
    const unseenRoles = new Set<string>();
    for (const b of [...direct, ...[...groupBindings.values()].flat()]) if (!roles.has(b.roleId) && reaches(b)) unseenRoles.add(b.roleId);
    if (unseenRoles.size > 0) {
      const rows = await db.role.findMany({ where: { tenantId, id: { in: [...unseenRoles] } }, select: { id: true, name: true, grants: { where: { resourceServerId: rsId }, select: { scopeKey: true } } } });
      for (const id of unseenRoles) roles.set(id, null);
      for (const r of rows) roles.set(r.id, { name: r.name, scopes: r.grants.map((g) => g.scopeKey).sort(compare) });
    }
    const email = new Map(users.map((u) => [u.id, u.email]));
    const endUser = new Map(endUsers.map((e) => [e.userId, e.status]));
    const page: AccessRow[] = [];
    for (const m of members) {
      const reaching: { b: BindingFacts; via: string }[] = [];
      for (const b of directByUser.get(m.userId) ?? []) if (reaches(b)) reaching.push({ b, via: "direct" });
      for (const g of groupsByUser.get(m.userId) ?? []) for (const b of groupBindings.get(g) ?? []) if (reaches(b)) reaching.push({ b, via: `group:${g}` });
      if (reaching.length === 0) continue;
      const endUserStatus = endUser.get(m.userId) ?? "active";
      const effective = m.status === "active" && endUserStatus !== "suspended";
      const rows: AccessRow[] = [];
      for (const { b, via } of reaching) {
        const role = roles.get(b.roleId);
        if (!role) continue;
        for (const scope of role.scopes) {
          const tools = app.toolsByScope.get(scope) ?? [];
          for (const tool of tools.length > 0 ? tools : [null]) {
            rows.push({
              user_id: m.userId,
              user_email: email.get(m.userId) ?? null,
              membership_status: m.status,
              end_user_status: endUserStatus,
              access_effective: effective,
              granted_through: via,
              binding_id: b.id,
              binding_expires_at: b.expiresAt ? b.expiresAt.toISOString() : null,
              role_id: b.roleId,
              role_name: role.name,
              scope_id: scope,
              tool_name: tool,
            });
          }
        }
      }
      rows.sort((x, y) => compare(x.role_id!, y.role_id!) || compare(x.scope_id!, y.scope_id!) || compare(x.tool_name ?? "", y.tool_name ?? "") || compare(x.binding_id!, y.binding_id!));
      page.push(...rows);
    }
    if (page.length > 0) yield page;
    if (members.length < pageSize) return;
  }
}
