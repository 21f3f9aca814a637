// Change previews: who gains and who loses which scopes and tools on an application if a proposed
// change were made, with warnings when protection weakens. Nothing is written.
//
// The answer is computed by THE scope resolver twice: as it is (rbac ScopeResolver.userScopes) and
// as if the change were made (ScopeResolver.whatIf over the same caches), and the tools by the
// runtime's rule over the served policy's scope matrix (a tool mapped to [] is public; otherwise
// the caller holds one of its scopes; a user who may hold nothing calls nothing; an application that
// is not launched serves no tool). Only users whose access the change can touch are evaluated:
// the subject of a binding (a group's members), the holders of a role, the suspended user; a tool
// or scope change evaluates every member of the workspace.
// Exported as previewChange() so the access simulation can price its fix (issue 22, item 7).
import type { Db } from "../../storage";
import type { Actor } from "../../shared/actor";
import { assertCanWrite } from "../../shared/actor";
import { badRequest, notFound } from "../../shared/errors";
import type { ScopeResolver, WhatIf } from "../rbac";
import type { ProposedChange } from "./schemas";

type Matrix = Record<string, string[]>;

export interface PreviewDeps {
  db: Db;
  resolver: ScopeResolver;
  /** The compiled policy runtimes enforce (null for an unknown server). */
  policy(rsId: string): Promise<{ policy_complete: boolean; scope_matrix: Matrix } | null>;
  findApplication(actor: Actor, id: string): Promise<{ id: string; tenantId: string }>;
  clock: { now(): Date };
}

export interface UserDelta {
  user_id: string;
  gains: { scopes: string[]; tools: string[] };
  losses: { scopes: string[]; tools: string[] };
}

export interface Warning {
  code: "tool_becomes_public" | "scope_reaches_everyone" | "tool_denied_to_everyone" | "application_not_launched" | "binding_reaches_every_application";
  message: string;
}

export interface ChangePreview {
  application_id: string;
  change: ProposedChange;
  written: false;
  users_evaluated: number;
  summary: { users_gaining: number; users_losing: number; scopes_gained: string[]; scopes_lost: string[]; tools_gained: string[]; tools_lost: string[] };
  /** Users whose access changes, by user_id; at most MAX_LISTED (see `truncated`). */
  users: UserDelta[];
  truncated: boolean;
  warnings: Warning[];
}

export const MAX_LISTED = 500;

const sorted = (s: Iterable<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const minus = (a: ReadonlySet<string>, b: ReadonlySet<string>) => sorted([...a].filter((x) => !b.has(x)));

/** The tools a holder of `scopes` may call under `matrix` (the SDK's decideTool rule); none for a user who may hold nothing. */
export function toolsFor(matrix: Matrix, complete: boolean, scopes: ReadonlySet<string> | null): Set<string> {
  const out = new Set<string>();
  if (!complete || scopes === null) return out;
  for (const [tool, needs] of Object.entries(matrix)) if (needs.length === 0 || needs.some((s) => scopes.has(s))) out.add(tool);
  return out;
}

interface Plan {
  whatIf: WhatIf[];
  users: string[];
  matrixAfter: Matrix;
  warnings: Warning[];
}

export async function previewChange(deps: PreviewDeps, actor: Actor, applicationId: string, change: ProposedChange): Promise<ChangePreview> {
  // Spec "Authentication" 3: the aggregate /v1 endpoints need the admin or owner role (decision 0034).
  assertCanWrite(actor);
  const app = await deps.findApplication(actor, applicationId);
  const policy = await deps.policy(app.id);
  const matrix: Matrix = policy?.scope_matrix ?? {};
  const complete = policy?.policy_complete ?? false;
  const plan = await planChange(deps, app, matrix, change);
  if (!complete) plan.warnings.push({ code: "application_not_launched", message: "the application is not launched: runtimes deny every tool until activation, so only scopes change now" });
  const after = await deps.resolver.whatIf(app.tenantId, plan.whatIf);
  const deltas: UserDelta[] = [];
  const gained = { scopes: new Set<string>(), tools: new Set<string>() };
  const lost = { scopes: new Set<string>(), tools: new Set<string>() };
  let gaining = 0;
  let losing = 0;
  const holdersAfter = new Map<string, number>();
  let activeAfter = 0;
  for (const userId of plan.users) {
    const s0 = await deps.resolver.userScopes(app.tenantId, app.id, userId);
    const s1 = await after.userScopes(app.tenantId, app.id, userId);
    if (s1 !== null) {
      activeAfter++;
      for (const s of s1) holdersAfter.set(s, (holdersAfter.get(s) ?? 0) + 1);
    }
    const t0 = toolsFor(matrix, complete, s0);
    const t1 = toolsFor(plan.matrixAfter, complete, s1);
    const a0 = s0 ?? new Set<string>();
    const a1 = s1 ?? new Set<string>();
    const d: UserDelta = { user_id: userId, gains: { scopes: minus(a1, a0), tools: minus(t1, t0) }, losses: { scopes: minus(a0, a1), tools: minus(t0, t1) } };
    const gains = d.gains.scopes.length + d.gains.tools.length > 0;
    const losses = d.losses.scopes.length + d.losses.tools.length > 0;
    if (!gains && !losses) continue;
    if (gains) gaining++;
    if (losses) losing++;
    d.gains.scopes.forEach((s) => gained.scopes.add(s));
    d.gains.tools.forEach((s) => gained.tools.add(s));
    d.losses.scopes.forEach((s) => lost.scopes.add(s));
    d.losses.tools.forEach((s) => lost.tools.add(s));
    deltas.push(d);
  }
  // A scope gained that every active member of the workspace would hold.
  if (plan.users.length > 1 && activeAfter > 1) {
    // Users who may hold anything now: active members whose end-user state is not suspended.
    const [active, suspended] = await Promise.all([
      deps.db.membership.count({ where: { tenantId: app.tenantId, status: "active" } }),
      deps.db.endUserState.count({ where: { tenantId: app.tenantId, status: "suspended", user: { memberships: { some: { tenantId: app.tenantId, status: "active" } } } } }),
    ]);
    const members = active - suspended;
    for (const s of sorted(gained.scopes)) {
      if (holdersAfter.get(s) === activeAfter && activeAfter >= members) plan.warnings.push({ code: "scope_reaches_everyone", message: `every active member of the workspace would hold ${s}` });
    }
  }
  deltas.sort((a, b) => (a.user_id < b.user_id ? -1 : 1));
  return {
    application_id: app.id,
    change,
    written: false,
    users_evaluated: plan.users.length,
    summary: { users_gaining: gaining, users_losing: losing, scopes_gained: sorted(gained.scopes), scopes_lost: sorted(lost.scopes), tools_gained: sorted(gained.tools), tools_lost: sorted(lost.tools) },
    users: deltas.slice(0, MAX_LISTED),
    truncated: deltas.length > MAX_LISTED,
    warnings: plan.warnings,
  };
}

async function allMembers(db: Db, tenantId: string): Promise<string[]> {
  return (await db.membership.findMany({ where: { tenantId }, select: { userId: true }, orderBy: { userId: "asc" } })).map((m) => m.userId);
}

async function groupMembers(db: Db, tenantId: string, groupId: string): Promise<string[]> {
  return (await db.groupMember.findMany({ where: { tenantId, groupId }, select: { userId: true } })).map((m) => m.userId);
}

/** Users reached by a binding subject (a user, or a group's members). */
async function subjectUsers(db: Db, tenantId: string, subjectType: string, subjectId: string): Promise<string[]> {
  if (subjectType === "user") return [subjectId];
  if (subjectType === "group") return groupMembers(db, tenantId, subjectId);
  return []; // service accounts are clients: not previewed here
}

async function roleHolders(db: Db, tenantId: string, roleId: string): Promise<string[]> {
  const bindings = await db.roleBinding.findMany({ where: { tenantId, roleId }, select: { subjectType: true, subjectId: true } });
  const users = new Set<string>();
  for (const b of bindings) for (const u of await subjectUsers(db, tenantId, b.subjectType, b.subjectId)) users.add(u);
  return sorted(users);
}

async function planChange(deps: PreviewDeps, app: { id: string; tenantId: string }, matrix: Matrix, change: ProposedChange): Promise<Plan> {
  const { db } = deps;
  const tenantId = app.tenantId;
  const warnings: Warning[] = [];
  const same = { matrixAfter: matrix, warnings };
  switch (change.kind) {
    case "binding_add": {
      const role = await db.role.findFirst({ where: { id: change.role_id, tenantId }, select: { id: true } });
      if (!role) throw notFound("role");
      const subject =
        change.subject_type === "user"
          ? await db.membership.findFirst({ where: { tenantId, userId: change.subject_id }, select: { id: true } })
          : await db.group.findFirst({ where: { tenantId, id: change.subject_id }, select: { id: true } });
      if (!subject) throw notFound(change.subject_type);
      const scopeType = change.scope_type ?? null;
      if (scopeType === "resource_server" && !change.scope_id) throw badRequest("change.scope_id: is required when scope_type is resource_server");
      const expiresAtMs = change.expires_at ? Date.parse(change.expires_at) : null;
      if (scopeType !== "resource_server") {
        const elsewhere = await db.roleGrant.count({ where: { roleId: change.role_id, resourceServerId: { not: app.id } } });
        if (elsewhere > 0) warnings.push({ code: "binding_reaches_every_application", message: "the binding is workspace-wide: the role's grants on other applications apply too (not shown here)" });
      }
      return {
        ...same,
        whatIf: [
          {
            kind: "add_binding",
            binding: { id: "previewed-binding", tenantId, roleId: change.role_id, subjectType: change.subject_type, subjectId: change.subject_id, scopeType, scopeId: change.scope_id ?? null, expiresAtMs },
          },
        ],
        users: await subjectUsers(db, tenantId, change.subject_type, change.subject_id),
      };
    }
    case "binding_remove": {
      const b = await db.roleBinding.findFirst({ where: { id: change.binding_id, tenantId }, select: { subjectType: true, subjectId: true } });
      if (!b) throw notFound("role binding");
      return { ...same, whatIf: [{ kind: "remove_binding", bindingId: change.binding_id, subjectType: b.subjectType, subjectId: b.subjectId }], users: await subjectUsers(db, tenantId, b.subjectType, b.subjectId) };
    }
    case "role_grants": {
      const role = await db.role.findFirst({ where: { id: change.role_id, tenantId }, select: { grants: { where: { resourceServerId: app.id }, select: { scopeKey: true } } } });
      if (!role) throw notFound("role");
      const known = new Set((await db.scope.findMany({ where: { resourceServerId: app.id, tenantId }, select: { key: true } })).map((s) => s.key));
      const unknown = change.add.find((s) => !known.has(s));
      if (unknown !== undefined) throw badRequest(`change.add: unknown scope ${JSON.stringify(unknown)} on this application`);
      const next = new Set(role.grants.map((g) => g.scopeKey));
      change.add.forEach((s) => next.add(s));
      change.remove.forEach((s) => next.delete(s));
      return { ...same, whatIf: [{ kind: "role_grants", roleId: change.role_id, resourceServerId: app.id, scopes: sorted(next) }], users: await roleHolders(db, tenantId, change.role_id) };
    }
    case "user_suspend": {
      const m = await db.membership.findFirst({ where: { tenantId, userId: change.user_id }, select: { id: true } });
      if (!m) throw notFound("user");
      return { ...same, whatIf: [{ kind: "deactivate_user", userId: change.user_id }], users: [change.user_id] };
    }
    case "tool_public": {
      await findTool(db, app, change.tool_name);
      warnings.push({ code: "tool_becomes_public", message: `${change.tool_name} would be callable by anyone with a valid token for this application, whatever their roles` });
      return { whatIf: [], users: await allMembers(db, tenantId), matrixAfter: { ...matrix, [change.tool_name]: [] }, warnings };
    }
    case "tool_mapping": {
      const tool = await findTool(db, app, change.tool_name);
      const known = new Set((await db.scope.findMany({ where: { resourceServerId: app.id, tenantId }, select: { key: true } })).map((s) => s.key));
      const unknown = change.scope_ids.find((s) => !known.has(s));
      if (unknown !== undefined) throw badRequest(`change.scope_ids: unknown scope ${JSON.stringify(unknown)} on this application`);
      const after = { ...matrix };
      if (tool.isPublic) after[change.tool_name] = [];
      else if (change.scope_ids.length > 0) after[change.tool_name] = sorted(change.scope_ids);
      else {
        delete after[change.tool_name];
        warnings.push({ code: "tool_denied_to_everyone", message: `${change.tool_name} would have no scope: denied to everyone` });
      }
      return { whatIf: [], users: await allMembers(db, tenantId), matrixAfter: after, warnings };
    }
    case "scope_delete": {
      const scope = await db.scope.findFirst({ where: { resourceServerId: app.id, tenantId, key: change.scope_id }, select: { id: true } });
      if (!scope) throw notFound("scope");
      const after: Matrix = {};
      for (const [tool, needs] of Object.entries(matrix)) {
        if (needs.length === 0) after[tool] = needs;
        else {
          const left = needs.filter((s) => s !== change.scope_id);
          if (left.length > 0) after[tool] = left;
          else warnings.push({ code: "tool_denied_to_everyone", message: `${tool} would have no scope left: denied to everyone` });
        }
      }
      const roles = await db.roleGrant.findMany({ where: { tenantId, resourceServerId: app.id }, select: { roleId: true, scopeKey: true } });
      const byRole = new Map<string, Set<string>>();
      for (const g of roles) byRole.set(g.roleId, (byRole.get(g.roleId) ?? new Set()).add(g.scopeKey));
      const whatIf: WhatIf[] = [];
      for (const [roleId, scopes] of byRole) {
        if (!scopes.has(change.scope_id)) continue;
        scopes.delete(change.scope_id);
        whatIf.push({ kind: "role_grants", roleId, resourceServerId: app.id, scopes: sorted(scopes) });
      }
      return { whatIf, users: await allMembers(db, tenantId), matrixAfter: after, warnings };
    }
  }
}

async function findTool(db: Db, app: { id: string; tenantId: string }, name: string) {
  const tool = await db.tool.findFirst({ where: { resourceServerId: app.id, tenantId: app.tenantId, name }, select: { id: true, isPublic: true } });
  if (!tool) throw notFound("tool");
  return tool;
}
