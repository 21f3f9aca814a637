// The aggregate read models of the spec's "Aggregate access APIs" (docs/access-explained.md):
// posture summary, tool exposure, scopes and scope impact, access assignments, end-user access
// summary. Each is one page (keyset pagination, src/shared/pagination.ts) of its rows, and every
// figure of a page is computed by the database (GROUP BY / COUNT(DISTINCT), bounded by the page's
// ids): no table is loaded whole. Raw SQL is used where Prisma cannot express a distinct count
// across the binding chain; it is plain SQL that SQLite and PostgreSQL both run (quoted
// identifiers, dates as parameters: the SQLite adapter writes them in the stored format).
//
// "Holds" here is the scope resolver's rule, in SQL: a binding of the workspace that has not
// expired, tenant-wide or scoped to the application, whose role grants the scope on the
// application, reaching a user directly or through a group, who is an active member and not a
// suspended end user (src/modules/rbac/scope-resolver.ts). test/access-views.test.ts checks the
// counts against the resolver.
import { sqltag as sql, join, empty, raw, type Sql } from "@prisma/client/runtime/client";
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { type Actor, assertCanRead, assertSameTenant } from "../../shared/actor";
import { notFound } from "../../shared/errors";
import { Keyset, type Page, type PageRequest, FIRST_PAGE } from "../../shared/pagination";
import type { ScopeResolver } from "../rbac";
import { findApplication, type ApplicationRow } from "./application";
import type { RuntimePolicy } from "./simulation";

type MaybePromise<T> = T | Promise<T>;
const n = (v: unknown) => Number(v ?? 0);
const DAY_MS = 86_400_000;
const MAX_NAMES = 50;

export const APPLICATION_LIST = new Keyset<{ createdAt: Date; id: string }>("posture", [
  { field: "createdAt", dir: "asc", kind: "date" },
  { field: "id", dir: "asc", kind: "string" },
], (r) => [r.createdAt, r.id]);
export const TOOL_LIST = new Keyset<{ name: string; id: string }>("tool-exposure", [
  { field: "name", dir: "asc", kind: "string" },
  { field: "id", dir: "asc", kind: "string" },
], (r) => [r.name, r.id]);
export const SCOPE_LIST = new Keyset<{ key: string; id: string }>("app-scopes", [
  { field: "key", dir: "asc", kind: "string" },
  { field: "id", dir: "asc", kind: "string" },
], (r) => [r.key, r.id]);
export const ASSIGNMENT_LIST = new Keyset<{ createdAt: Date; id: string }>("access-assignments", [
  { field: "createdAt", dir: "asc", kind: "date" },
  { field: "id", dir: "asc", kind: "string" },
], (r) => [r.createdAt, r.id]);
export const END_USER_LIST = new Keyset<{ createdAt: Date; id: string }>("end-user-access", [
  { field: "createdAt", dir: "asc", kind: "date" },
  { field: "id", dir: "asc", kind: "string" },
], (r) => [r.createdAt, r.id]);
export const HOLDER_LIST = new Keyset<{ userId: string }>("scope-holders", [{ field: "userId", dir: "asc", kind: "string" }], (r) => [r.userId]);

export interface ReadModelPorts {
  resolver: ScopeResolver;
  policy(resourceServerId: string): MaybePromise<RuntimePolicy | null>;
}

/**
 * The role binding `b` applies on the server `server` (a column): unscoped, "*", or scoped to that
 * server (the resolver's rule, src/modules/rbac). Every view's walk from bindings to grants uses it.
 */
function reaches(server: Sql): Sql {
  return sql`(b."scopeType" IS NULL OR b."scopeType" = '*' OR (b."scopeType" = 'resource_server' AND b."scopeId" = ${server}))`;
}

/** The binding `b` has not expired at `now`. */
function unexpired(now: Date): Sql {
  return sql`(b."expiresAt" IS NULL OR b."expiresAt" > ${now})`;
}

/**
 * The user `uid` (a column) is an active member whose end-user state is not suspended (the
 * resolver's isActive): the last step of every "users with access" walk. CROSS JOIN keeps SQLite
 * from starting at the workspace's every member.
 */
function activeMember(tenantId: string, uid: Sql): Sql {
  return sql`CROSS JOIN "Membership" m
    LEFT JOIN "EndUserState" e ON e."tenantId" = m."tenantId" AND e."userId" = m."userId"
    WHERE m."tenantId" = ${tenantId} AND m."status" = 'active' AND m."userId" = ${uid}
      AND (e."status" IS NULL OR e."status" <> 'suspended')`;
}

/** The binding chain up to the role's grants: bindings that count now on the grant's server. */
function grantChain(tenantId: string, now: Date, join: Sql = empty): Sql {
  return sql`FROM "RoleBinding" b
    JOIN "RoleGrant" rg ON rg."roleId" = b."roleId" AND rg."tenantId" = b."tenantId"
    ${join}
    WHERE b."tenantId" = ${tenantId}
      AND ${unexpired(now)}
      AND ${reaches(col('rg."resourceServerId"'))}`;
}

/**
 * Bindings of the workspace that count now and expire within [now, soon], with the grants they
 * reach: starts at the (tenantId, expiresAt) index range (CROSS JOIN keeps SQLite there), which
 * holds the few bindings that expire at all. "Counts now and expires by soon" is "expiresAt in
 * (now, soon]".
 */
function expiringChain(tenantId: string, now: Date, soon: Date): Sql {
  return sql`FROM "RoleBinding" b CROSS JOIN "RoleGrant" rg
    WHERE b."tenantId" = ${tenantId} AND b."expiresAt" > ${now} AND b."expiresAt" <= ${soon}
      AND rg."roleId" = b."roleId" AND rg."tenantId" = b."tenantId"
      AND ${reaches(col('rg."resourceServerId"'))}`;
}

/**
 * The users the workspace's bindings reach through the grants that `grants` selects (a condition on
 * `rg`), who may hold anything now (the resolver's isActive): one row per (server, role, binding,
 * user) with columns rs (server), "roleId" and uid (user); join RoleGrant on (rs, "roleId") for the
 * scopes. The walk starts at the grants' distinct (server, role) pairs, then the bindings of those
 * roles, then group members by group, then the membership: one branch for direct bindings and one
 * for group bindings, so a page of applications or tools reads only the bindings of its roles, and
 * each binding's users are tested once per server, not once per scope. CROSS JOIN fixes that
 * order on SQLite, which has no statistics unless ANALYZE ran and otherwise starts from the
 * workspace's every binding or member
 * (https://sqlite.org/optoverview.html#manual_control_of_query_plans_using_cross_join);
 * PostgreSQL plans a CROSS JOIN with WHERE terms like any inner join. The group member's workspace
 * is not tested: the group is the binding's (same workspace) and the membership row is tested.
 */
function heldBy(tenantId: string, now: Date, grants: Sql): Sql {
  const pairs = sql`(SELECT DISTINCT rg."resourceServerId" AS rs, rg."roleId" AS "roleId" FROM "RoleGrant" rg WHERE rg."tenantId" = ${tenantId} ${grants}) g`;
  const live = sql`b."roleId" = g."roleId" AND b."tenantId" = ${tenantId} AND ${unexpired(now)} AND ${reaches(col("g.rs"))}`;
  return sql`FROM (
      SELECT g.rs, g."roleId", b."subjectId" AS uid
      FROM ${pairs} CROSS JOIN "RoleBinding" b
      WHERE b."subjectType" = 'user' AND ${live}
      UNION ALL
      SELECT g.rs, g."roleId", gm."userId" AS uid
      FROM ${pairs} CROSS JOIN "RoleBinding" b CROSS JOIN "GroupMember" gm
      WHERE b."subjectType" = 'group' AND ${live} AND gm."groupId" = b."subjectId"
    ) r
    ${activeMember(tenantId, col("r.uid"))}`;
}

/**
 * heldBy's users with the scopes of their grants that `grants` selects: columns h.uid and rg."scopeKey".
 * DISTINCT keeps PostgreSQL from moving the join with the grants below the membership test (which
 * would then run once per scope instead of once per user and role).
 */
function scopesHeldBy(tenantId: string, now: Date, grants: Sql): Sql {
  return sql`FROM (SELECT DISTINCT r.rs, r."roleId", r.uid ${heldBy(tenantId, now, grants)}) h
    JOIN "RoleGrant" rg ON rg."roleId" = h."roleId" AND rg."resourceServerId" = h.rs
    WHERE rg."tenantId" = ${tenantId} ${grants}`;
}

/**
 * How many users hold anything on any application of the workspace now: the members who pass the
 * resolver's isActive and are reached by a binding (direct, or through a group) that counts now
 * with a role granting something. The reached users are one UNION (distinct) of the two kinds of
 * binding, each then tested once against the membership: no DISTINCT over every (grant, binding,
 * user) of the workspace, and no per-member subqueries (PostgreSQL runs an OR of two EXISTS as two
 * subplans per member).
 */
function usersWithAnyAccess(tenantId: string, now: Date): Sql {
  const live = sql`b."tenantId" = ${tenantId} AND ${unexpired(now)} AND ${reaches(col('rg."resourceServerId"'))}`;
  return sql`SELECT COUNT(*) AS n FROM (
        SELECT b."subjectId" AS uid FROM "RoleBinding" b JOIN "RoleGrant" rg ON rg."roleId" = b."roleId" AND rg."tenantId" = b."tenantId"
          WHERE b."subjectType" = 'user' AND ${live}
        UNION
        SELECT gm."userId" AS uid FROM "RoleBinding" b JOIN "RoleGrant" rg ON rg."roleId" = b."roleId" AND rg."tenantId" = b."tenantId"
          JOIN "GroupMember" gm ON gm."groupId" = b."subjectId"
          WHERE b."subjectType" = 'group' AND ${live}
      ) u
    ${activeMember(tenantId, col("u.uid"))}`;
}

const inList = (column: Sql, ids: readonly string[]) => (ids.length ? sql`AND ${column} IN (${join([...ids])})` : sql`AND 1 = 0`);
const col = (name: string) => raw(name);

export class AccessReadModels {
  constructor(
    private readonly db: Db,
    private readonly ports: ReadModelPorts,
    private readonly clock: Clock,
  ) {}

  // ---------------------------------------------------------------- 1. posture summary

  async postureSummary(actor: Actor, workspaceId: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    assertSameTenant(actor, workspaceId);
    const tenantId = actor.tenantId;
    // The roll-up does not depend on the page: on PostgreSQL its queries run on other pool
    // connections while the page's are answered (SQLite has one connection and runs them in turn).
    const workspace = this.rollUp(tenantId);
    workspace.catch(() => undefined); // awaited below; a failure of the page's queries must not leave it unhandled
    const rows = await this.db.resourceServer.findMany({
      where: APPLICATION_LIST.where({ tenantId, deletedAt: null }, page.cursor) as never,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: page.limit + 1,
      select: { id: true, name: true, state: true, scanGeneration: true, createdAt: true },
    });
    const { rows: apps, next_cursor } = APPLICATION_LIST.slice(rows, page.limit);
    const ids = apps.map((a) => a.id);
    const stats = await this.postureStats(tenantId, ids);
    const items = apps.map((a) => ({
      application_id: a.id,
      name: a.name,
      state: a.state,
      badges: badges(a.state, a.scanGeneration),
      ...stats.get(a.id)!,
    }));
    return { items, count: items.length, next_cursor, workspace: await workspace };
  }

  /**
   * The posture figures of many applications of the actor's workspace at once (the graph's loader):
   * the same queries as one page, so N applications cost what one does. Another workspace's id gets
   * zeros (every query is scoped by the workspace).
   */
  async postureFor(actor: Actor, ids: readonly string[]): Promise<Map<string, PostureStats>> {
    assertCanRead(actor);
    return this.postureStats(actor.tenantId, [...ids]);
  }

  /** The figures of each application in `ids` (one query per figure, grouped by application). */
  private async postureStats(tenantId: string, ids: string[]) {
    const now = this.clock.now();
    const soon = new Date(now.getTime() + 7 * DAY_MS);
    const rsIn = { in: ids };
    const [toolsByPublic, mapped, changed, drift, clients, connections, users, expiring] = await Promise.all([
      this.db.tool.groupBy({ by: ["resourceServerId", "isPublic"], where: { tenantId, resourceServerId: rsIn }, _count: { _all: true } }),
      this.db.tool.groupBy({ by: ["resourceServerId"], where: { tenantId, resourceServerId: rsIn, isPublic: false, scopes: { some: {} } }, _count: { _all: true } }),
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT "resourceServerId" AS k, COUNT(*) AS n FROM "Tool"
        WHERE "tenantId" = ${tenantId} ${inList(col('"resourceServerId"'), ids)} AND "approvedDefinitionHash" IS NOT NULL
          AND ("liveDefinitionHash" IS NULL OR "liveDefinitionHash" <> "approvedDefinitionHash") GROUP BY "resourceServerId"`,
      this.db.driftEvent.groupBy({ by: ["rsId"], where: { tenantId, rsId: rsIn, dismissedAt: null }, _count: { _all: true } }),
      this.db.client.groupBy({ by: ["resourceServerId", "status"], where: { tenantId, resourceServerId: rsIn }, _count: { _all: true } }),
      this.db.connection.groupBy({ by: ["resourceServerId", "status"], where: { tenantId, resourceServerId: rsIn }, _count: { _all: true } }),
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT r.rs AS k, COUNT(DISTINCT r.uid) AS n ${heldBy(tenantId, now, inList(col('rg."resourceServerId"'), ids))}
        GROUP BY r.rs`,
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT rg."resourceServerId" AS k, COUNT(DISTINCT b."id") AS n ${expiringChain(tenantId, now, soon)}
        ${inList(col('rg."resourceServerId"'), ids)} GROUP BY rg."resourceServerId"`,
    ]);
    const out = new Map<string, ReturnType<typeof emptyStats>>();
    for (const id of ids) out.set(id, emptyStats());
    for (const t of toolsByPublic) {
      const s = out.get(t.resourceServerId)!;
      s.tools.total += t._count._all;
      if (t.isPublic) s.tools.public += t._count._all;
    }
    for (const t of mapped) out.get(t.resourceServerId)!.tools.mapped = t._count._all;
    for (const s of out.values()) s.tools.unmapped = s.tools.total - s.tools.public - s.tools.mapped;
    for (const c of changed) out.get(c.k)!.tools.pinned_definition_changed = n(c.n);
    for (const d of drift) out.get(d.rsId)!.open_drift_events = d._count._all;
    for (const c of clients) if (c.resourceServerId) bump(out.get(c.resourceServerId)!.clients.prereg, c.status, c._count._all);
    for (const c of connections) {
      const s = out.get(c.resourceServerId)!;
      bump(s.clients.connected, c.status, c._count._all);
      if (c.status === "pending") s.pending_access_requests = c._count._all;
    }
    for (const u of users) out.get(u.k)!.users_with_access = n(u.n);
    for (const e of expiring) out.get(e.k)!.bindings_expiring_7d = n(e.n);
    return out;
  }

  private async rollUp(tenantId: string) {
    const now = this.clock.now();
    const soon = new Date(now.getTime() + 7 * DAY_MS);
    const [states, toolCounts, drift, pending, users, expiring] = await Promise.all([
      this.db.resourceServer.groupBy({ by: ["state"], where: { tenantId, deletedAt: null }, _count: { _all: true } }),
      // The live applications' tools in one pass: all, public, and mapped (not public, with a scope).
      this.db.$queryRaw<{ total: bigint | null; pub: bigint | null; mapped: bigint | null }[]>`SELECT COUNT(*) AS total,
          SUM(CASE WHEN t."isPublic" THEN 1 ELSE 0 END) AS pub,
          SUM(CASE WHEN NOT t."isPublic" AND EXISTS (SELECT 1 FROM "ToolScope" ts WHERE ts."toolId" = t."id") THEN 1 ELSE 0 END) AS mapped
        FROM "Tool" t JOIN "ResourceServer" rs ON rs."id" = t."resourceServerId" AND rs."deletedAt" IS NULL
        WHERE t."tenantId" = ${tenantId}`,
      this.db.driftEvent.count({ where: { tenantId, dismissedAt: null, resourceServer: { deletedAt: null } } }),
      this.db.connection.count({ where: { tenantId, status: "pending" } }),
      this.db.$queryRaw<{ n: bigint }[]>(usersWithAnyAccess(tenantId, now)),
      this.db.$queryRaw<{ n: bigint }[]>`SELECT COUNT(DISTINCT b."id") AS n ${expiringChain(tenantId, now, soon)}`,
    ]);
    const tools = n(toolCounts[0]?.total);
    const publicTools = n(toolCounts[0]?.pub);
    const mapped = n(toolCounts[0]?.mapped);
    const byState = Object.fromEntries(states.map((s) => [s.state, s._count._all]));
    return {
      applications: states.reduce((a, s) => a + s._count._all, 0),
      applications_by_state: byState,
      not_launched: states.filter((s) => s.state !== "ready").reduce((a, s) => a + s._count._all, 0),
      tools: { total: tools, public: publicTools, mapped, unmapped: tools - publicTools - mapped },
      open_drift_events: drift,
      pending_access_requests: pending,
      users_with_access: n(users[0]?.n),
      bindings_expiring_7d: n(expiring[0]?.n),
    };
  }

  // ---------------------------------------------------------------- 2. tool exposure

  async toolExposure(actor: Actor, applicationId: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const rows = await this.db.tool.findMany({
      where: TOOL_LIST.where({ tenantId, resourceServerId: app.id }, page.cursor) as never,
      orderBy: [{ name: "asc" }, { id: "asc" }],
      take: page.limit + 1,
      select: { id: true, name: true, isPublic: true, approvedDefinitionHash: true, liveDefinitionHash: true, scopes: { select: { scope: { select: { key: true } } } } },
    });
    const { rows: tools, next_cursor } = TOOL_LIST.slice(rows, page.limit);
    const ids = tools.map((t) => t.id);
    const now = this.clock.now();
    // Only the grants of the scopes this page's tools are mapped to can reach them.
    const keys = [...new Set(tools.flatMap((t) => t.scopes.map((s) => s.scope.key)))];
    const pageGrants = sql`AND rg."resourceServerId" = ${app.id} ${inList(col('rg."scopeKey"'), keys)}`;
    const toolScopes = sql`JOIN "Scope" s ON s."resourceServerId" = ${app.id} AND s."key" = x.sk
      JOIN "ToolScope" ts ON ts."scopeId" = s."id"`;
    // A tool's users are its scopes' holders. Counted per scope (a few rows); only a tool mapped to
    // several scopes needs the distinct union of their holders, counted for those tools alone.
    const multi = tools.filter((t) => t.scopes.length > 1).map((t) => t.id);
    const [byScope, byTool, subjects, roleGrants, clients] = await Promise.all([
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT rg."scopeKey" AS k, COUNT(DISTINCT h.uid) AS n ${scopesHeldBy(tenantId, now, pageGrants)} GROUP BY rg."scopeKey"`,
      multi.length === 0
        ? Promise.resolve([])
        : this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT ts."toolId" AS k, COUNT(DISTINCT x.uid) AS n
        FROM (SELECT DISTINCT rg."scopeKey" AS sk, h.uid ${scopesHeldBy(tenantId, now, pageGrants)}) x ${toolScopes}
        WHERE 1 = 1 ${inList(col('ts."toolId"'), multi)} GROUP BY ts."toolId"`,
      // Groups and service accounts (users are counted above, through the resolver's rule).
      this.db.$queryRaw<{ k: string; t: string; n: bigint }[]>`SELECT ts."toolId" AS k, x.t, COUNT(DISTINCT x.sid) AS n
        FROM (SELECT DISTINCT rg."scopeKey" AS sk, b."subjectType" AS t, b."subjectId" AS sid ${grantChain(tenantId, now)} ${pageGrants}
          AND b."subjectType" IN ('group', 'service_account')) x ${toolScopes}
        WHERE 1 = 1 ${inList(col('ts."toolId"'), ids)} GROUP BY ts."toolId", x.t`,
      this.db.roleGrant.findMany({
        where: { tenantId, resourceServerId: app.id, scopeKey: { in: keys } },
        select: { scopeKey: true, role: { select: { id: true, name: true } } },
        orderBy: [{ role: { name: "asc" } }, { roleId: "asc" }],
      }),
      this.appClients(tenantId, app.id),
    ]);
    const scopeUsers = new Map(byScope.map((u) => [u.k, n(u.n)]));
    const userCount = new Map(byTool.map((u) => [u.k, n(u.n)]));
    for (const t of tools) if (t.scopes.length === 1) userCount.set(t.id, scopeUsers.get(t.scopes[0]!.scope.key) ?? 0);
    const subjectCount = new Map(subjects.map((s) => [`${s.k} ${s.t}`, n(s.n)]));
    const items = tools.map((t) => {
      const scopes = t.scopes.map((s) => s.scope.key).sort();
      const roles = uniqueBy(roleGrants.filter((g) => scopes.includes(g.scopeKey)).map((g) => ({ role_id: g.role.id, role_name: g.role.name })), (r) => r.role_id);
      const byAllowed = clients.reduce((sum, c) => (c.allowedScopes.some((s) => scopes.includes(s)) ? sum + c.count : sum), 0);
      return {
        tool_id: t.id,
        name: t.name,
        scopes,
        public: t.isPublic,
        mapped: t.isPublic || scopes.length > 0,
        definition_changed: t.approvedDefinitionHash !== null && t.liveDefinitionHash !== t.approvedDefinitionHash,
        users: userCount.get(t.id) ?? 0,
        groups: subjectCount.get(`${t.id} group`) ?? 0,
        clients: byAllowed + (subjectCount.get(`${t.id} service_account`) ?? 0),
        roles,
      };
    });
    return { application_id: app.id, application_state: app.state, items, count: items.length, next_cursor };
  }

  /**
   * The application's approved pre-registered clients (its own and the workspace-wide ones),
   * counted per distinct allowed-scopes list by the database: as many rows as there are distinct
   * lists, whatever the number of clients.
   */
  private async appClients(tenantId: string, rsId: string): Promise<{ count: number; allowedScopes: string[] }[]> {
    const rows = await this.db.$queryRaw<{ s: string | null; n: bigint }[]>`SELECT CAST("allowedScopes" AS TEXT) AS s, COUNT(*) AS n FROM "Client"
      WHERE "tenantId" = ${tenantId} AND "status" = 'approved' AND ("resourceServerId" = ${rsId} OR "resourceServerId" IS NULL)
      GROUP BY CAST("allowedScopes" AS TEXT)`;
    return rows.map((r) => ({ count: n(r.n), allowedScopes: scopeList(r.s) }));
  }

  // ---------------------------------------------------------------- 3. scopes and scope impact

  async scopes(actor: Actor, applicationId: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const rows = await this.db.scope.findMany({
      where: SCOPE_LIST.where({ tenantId, resourceServerId: app.id }, page.cursor) as never,
      orderBy: [{ key: "asc" }, { id: "asc" }],
      take: page.limit + 1,
      select: { id: true, key: true, name: true, description: true },
    });
    const { rows: scopes, next_cursor } = SCOPE_LIST.slice(rows, page.limit);
    const facts = await this.scopeFacts(tenantId, app, scopes.map((s) => s.key));
    const items = scopes.map((s) => ({ scope_id: s.key, name: s.name, description: s.description, ...facts.get(s.key)! }));
    return { application_id: app.id, items, count: items.length, next_cursor };
  }

  private async scopeFacts(tenantId: string, app: ApplicationRow, keys: string[]) {
    const now = this.clock.now();
    const [tools, toolCounts, roles, users] = await Promise.all([
      this.db.toolScope.findMany({
        where: { tenantId, resourceServerId: app.id, scope: { key: { in: keys } } },
        select: { scope: { select: { key: true } }, tool: { select: { id: true, name: true, isPublic: true } } },
        orderBy: [{ tool: { name: "asc" } }],
        take: keys.length * MAX_NAMES,
      }),
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT s."key" AS k, COUNT(*) AS n FROM "ToolScope" ts JOIN "Scope" s ON s."id" = ts."scopeId"
        WHERE s."resourceServerId" = ${app.id} AND s."tenantId" = ${tenantId} ${inList(col('s."key"'), keys)} GROUP BY s."key"`,
      this.db.roleGrant.findMany({ where: { tenantId, resourceServerId: app.id, scopeKey: { in: keys } }, select: { scopeKey: true, role: { select: { id: true, name: true } } }, orderBy: [{ role: { name: "asc" } }] }),
      this.db.$queryRaw<{ k: string; n: bigint }[]>`SELECT rg."scopeKey" AS k, COUNT(DISTINCT h.uid) AS n
        ${scopesHeldBy(tenantId, now, sql`AND rg."resourceServerId" = ${app.id} ${inList(col('rg."scopeKey"'), keys)}`)} GROUP BY rg."scopeKey"`,
    ]);
    const out = new Map<string, { tools: { tool_id: string; name: string }[]; tools_count: number; roles: { role_id: string; role_name: string }[]; users_count: number }>();
    for (const k of keys) out.set(k, { tools: [], tools_count: 0, roles: [], users_count: 0 });
    for (const t of tools) {
      const f = out.get(t.scope.key)!;
      if (f.tools.length < MAX_NAMES) f.tools.push({ tool_id: t.tool.id, name: t.tool.name });
    }
    for (const c of toolCounts) out.get(c.k)!.tools_count = n(c.n);
    for (const r of roles) out.get(r.scopeKey)!.roles.push({ role_id: r.role.id, role_name: r.role.name });
    for (const u of users) out.get(u.k)!.users_count = n(u.n);
    return out;
  }

  /** One scope: what it unlocks, who grants it, and a page of the users holding it with what through. */
  async scopeImpact(actor: Actor, applicationId: string, scopeKey: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const scope = await this.db.scope.findFirst({ where: { tenantId, resourceServerId: app.id, key: scopeKey }, select: { key: true, name: true, description: true } });
    if (!scope) throw notFound("scope");
    const now = this.clock.now();
    const after = page.cursor ? sql`AND r.uid > ${page.cursor.values[0] as string}` : empty;
    const [facts, holders] = await Promise.all([
      this.scopeFacts(tenantId, app, [scope.key]),
      this.db.$queryRaw<{ userId: string }[]>`SELECT DISTINCT r.uid AS "userId"
        ${heldBy(tenantId, now, sql`AND rg."resourceServerId" = ${app.id} AND rg."scopeKey" = ${scope.key}`)} ${after}
        ORDER BY r.uid ASC LIMIT ${page.limit + 1}`,
    ]);
    const { rows, next_cursor } = HOLDER_LIST.slice(holders, page.limit);
    const userIds = rows.map((r) => r.userId);
    // Through what: the bindings of this page's users (direct or through a group) whose role grants the scope here.
    const [users, memberOf] = await Promise.all([
      this.db.user.findMany({ where: { tenantId, id: { in: userIds } }, select: { id: true, email: true } }),
      this.db.groupMember.findMany({ where: { tenantId, userId: { in: userIds } }, select: { userId: true, groupId: true, group: { select: { name: true } } } }),
    ]);
    const bindings = await this.db.roleBinding.findMany({
      where: {
        tenantId,
        role: { grants: { some: { resourceServerId: app.id, scopeKey: scope.key } } },
        AND: [
          { OR: [{ subjectType: "user", subjectId: { in: userIds } }, { subjectType: "group", subjectId: { in: [...new Set(memberOf.map((g) => g.groupId))] } }] },
          { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
          { OR: [{ scopeType: null }, { scopeType: "*" }, { scopeType: "resource_server", scopeId: app.id }] },
        ],
      },
      select: { id: true, subjectType: true, subjectId: true, expiresAt: true, role: { select: { id: true, name: true } } },
    });
    const email = new Map(users.map((u) => [u.id, u.email]));
    const items = userIds.map((userId) => {
      const groups = memberOf.filter((g) => g.userId === userId);
      const through = bindings
        .filter((b) => (b.subjectType === "user" ? b.subjectId === userId : groups.some((g) => g.groupId === b.subjectId)))
        .map((b) => ({
          binding_id: b.id,
          via: b.subjectType === "user" ? "direct" : `group:${groups.find((g) => g.groupId === b.subjectId)?.group.name ?? b.subjectId}`,
          role_id: b.role.id,
          role_name: b.role.name,
          expires_at: b.expiresAt?.toISOString() ?? null,
        }));
      return { user_id: userId, email: email.get(userId) ?? null, through };
    });
    return { application_id: app.id, scope_id: scope.key, name: scope.name, description: scope.description, ...facts.get(scope.key)!, users: { items, count: items.length, next_cursor } };
  }

  // ---------------------------------------------------------------- 4. access assignments

  async accessAssignments(actor: Actor, applicationId: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const rows = await this.db.roleBinding.findMany({
      where: ASSIGNMENT_LIST.where(
        {
          tenantId,
          role: { grants: { some: { resourceServerId: app.id } } },
          OR: [{ scopeType: null }, { scopeType: "*" }, { scopeType: "resource_server", scopeId: app.id }],
        },
        page.cursor,
      ) as never,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: page.limit + 1,
      select: {
        id: true, subjectType: true, subjectId: true, scopeType: true, scopeId: true, expiresAt: true, source: true, createdAt: true, createdBy: true,
        role: { select: { id: true, name: true, grants: { where: { resourceServerId: app.id }, select: { scopeKey: true } } } },
      },
    });
    const { rows: page_, next_cursor } = ASSIGNMENT_LIST.slice(rows, page.limit);
    const ids = (t: string) => page_.filter((b) => b.subjectType === t).map((b) => b.subjectId);
    const [users, groups, clients] = await Promise.all([
      this.db.user.findMany({ where: { tenantId, id: { in: [...ids("user"), ...page_.flatMap((b) => (b.createdBy ? [b.createdBy] : []))] } }, select: { id: true, email: true } }),
      this.db.group.findMany({ where: { tenantId, id: { in: ids("group") } }, select: { id: true, name: true } }),
      this.db.client.findMany({ where: { tenantId, id: { in: ids("service_account") } }, select: { id: true, clientId: true, clientName: true } }),
    ]);
    const userEmail = new Map(users.map((u) => [u.id, u.email]));
    const groupName = new Map(groups.map((g) => [g.id, g.name]));
    const client = new Map(clients.map((c) => [c.id, c]));
    const now = this.clock.now().getTime();
    const items = page_.map((b) => ({
      binding_id: b.id,
      subject: b.subjectType,
      subject_id: b.subjectId,
      subject_name: b.subjectType === "user" ? (userEmail.get(b.subjectId) ?? null) : b.subjectType === "group" ? (groupName.get(b.subjectId) ?? null) : (client.get(b.subjectId)?.clientName ?? null),
      ...(b.subjectType === "service_account" ? { client_id: client.get(b.subjectId)?.clientId ?? null } : {}),
      role_id: b.role.id,
      role_name: b.role.name,
      scopes: b.role.grants.map((g) => g.scopeKey).sort(),
      scope_type: b.scopeType,
      scope_id: b.scopeId,
      expires_at: b.expiresAt?.toISOString() ?? null,
      expired: b.expiresAt !== null && b.expiresAt.getTime() <= now,
      source: b.source,
      granted_by: b.createdBy,
      granted_by_email: b.createdBy ? (userEmail.get(b.createdBy) ?? null) : null,
      granted_at: b.createdAt.toISOString(),
    }));
    return { application_id: app.id, items, count: items.length, next_cursor };
  }

  // ---------------------------------------------------------------- 5. end-user access summary

  async endUserAccessSummary(actor: Actor, applicationId: string, page: PageRequest = FIRST_PAGE) {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const rows = await this.db.membership.findMany({
      where: END_USER_LIST.where({ tenantId }, page.cursor) as never,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: page.limit + 1,
      select: { id: true, userId: true, status: true, createdAt: true, user: { select: { email: true } } },
    });
    const { rows: members, next_cursor } = END_USER_LIST.slice(rows, page.limit);
    const userIds = members.map((m) => m.userId);
    const { resolver } = this.ports;
    const [endUsers, lastTokens, policy, held, bindings] = await Promise.all([
      this.db.endUserState.findMany({ where: { tenantId, userId: { in: userIds } }, select: { userId: true, status: true } }),
      this.db.refreshToken.groupBy({ by: ["userId"], where: { tenantId, resource: app.resourceUrl, userId: { in: userIds } }, _max: { createdAt: true } }),
      this.ports.policy(app.id),
      Promise.all(members.map((m) => resolver.userScopes(tenantId, app.id, m.userId))),
      Promise.all(members.map((m) => resolver.effectiveBindings({ tenantId, resourceServerId: app.id, subject: { type: "user", id: m.userId } }))),
    ]);
    const roleIds = [...new Set(bindings.flat().map((b) => b.roleId))];
    const roleNames = new Map((await this.db.role.findMany({ where: { tenantId, id: { in: roleIds } }, select: { id: true, name: true } })).map((r) => [r.id, r.name]));
    const endUser = new Map(endUsers.map((e) => [e.userId, e.status]));
    const last = new Map(lastTokens.map((t) => [t.userId, t._max.createdAt]));
    const matrix = policy?.document.policy_complete ? policy.document.scope_matrix : {};
    const items = members.map((m, i) => {
      const scopes = held[i] ? [...held[i]!].sort() : [];
      const tools = held[i] ? Object.entries(matrix).filter(([, needs]) => needs.length === 0 || needs.some((s) => held[i]!.has(s))).map(([name]) => name) : [];
      return {
        user_id: m.userId,
        email: m.user.email,
        membership_status: m.status,
        end_user_status: endUser.get(m.userId) ?? "active",
        active: held[i] !== null,
        scopes,
        tools,
        via: bindings[i]!.map((b) => ({ binding_id: b.id, subject: b.subjectType, role_id: b.roleId, role_name: roleNames.get(b.roleId) ?? null, expires_at: b.expiresAtMs === null ? null : new Date(b.expiresAtMs).toISOString() })),
        last_token_issued_at: last.get(m.userId)?.toISOString() ?? null,
      };
    });
    return { application_id: app.id, items, count: items.length, next_cursor };
  }
}

export type PostureStats = ReturnType<typeof emptyStats>;

function emptyStats() {
  return {
    tools: { total: 0, mapped: 0, public: 0, unmapped: 0, pinned_definition_changed: 0 },
    open_drift_events: 0,
    clients: { prereg: {} as Record<string, number>, connected: {} as Record<string, number> },
    pending_access_requests: 0,
    users_with_access: 0,
    bindings_expiring_7d: 0,
  };
}

/** A client's allowedScopes column as text (a JSON array of strings); anything else holds no scope. */
function scopeList(text: string | null): string[] {
  if (text === null) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function bump(into: Record<string, number>, key: string, by: number) {
  into[key] = (into[key] ?? 0) + by;
}

/** The spec's two derived badges (Applications screen). */
export function badges(state: string, scanGeneration: number): string[] {
  const out: string[] = [];
  if (state === "needs_setup" && scanGeneration > 0) out.push("discovered");
  if (state !== "ready") out.push("not_launched");
  return out;
}

function uniqueBy<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => (seen.has(key(x)) ? false : (seen.add(key(x)), true)));
}

export type { Page };
