// What a proposed change touches, for previews (preview.ts): the resolver's what-if entries, the
// users and service accounts whose access the change can touch (the subject of a binding, a
// group's members, the holders of a role, the suspended user; a tool or scope change evaluates
// every member of the workspace and the application's clients), the scope matrix after it, and
// the warnings only the change itself can tell.
import type { Db } from "../../storage";
import type { Actor } from "../../shared/actor";
import { badRequest, notFound } from "../../shared/errors";
import type { ScopeResolver, WhatIf } from "../rbac";
import { planDefaultRole, type FirstSignIn } from "./default-role";
import { planConnectionRevoke, type ClientLookups, type RevokedClient } from "./connection-revoke";
import { applicationServiceAccounts, findServiceAccount, serviceAccount, serviceAccountHolders, type ServiceAccount } from "./service-accounts";
import type { Warning } from "./preview";
import type { ProposedChange } from "./schemas";

export type Matrix = Record<string, string[]>;

export interface PreviewDeps extends ClientLookups {
  db: Db;
  resolver: ScopeResolver;
  /** The compiled policy runtimes enforce (null for an unknown server). */
  policy(rsId: string): Promise<{ policy_complete: boolean; scope_matrix: Matrix } | null>;
  findApplication(actor: Actor, id: string): Promise<{ id: string; tenantId: string; resourceUrl: string }>;
  clock: { now(): Date };
}

type App = { id: string; tenantId: string; resourceUrl: string };
type Access = ReadonlySet<string> | null;

export interface Plan {
  whatIf: WhatIf[];
  users: string[];
  serviceAccounts: ServiceAccount[];
  matrixAfter: Matrix;
  warnings: Warning[];
  /** Replaces the resolver's question for users (connection_revoke: what their tokens of one client are worth). */
  userAccess?: { before(userId: string): Promise<Access>; after(userId: string): Promise<Access> };
  /** More subjects than the preview evaluates. */
  capped: boolean;
  firstSignIn?: FirstSignIn;
  client?: RevokedClient;
}

const sorted = (s: Iterable<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

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
  return []; // a service account is a client: evaluated as one (service-accounts.ts)
}

/** The users a role's bindings reach: its user bindings, and the members of its groups in one query (not one per group). */
async function roleHolders(db: Db, tenantId: string, roleId: string): Promise<string[]> {
  const bindings = await db.roleBinding.findMany({ where: { tenantId, roleId, subjectType: { in: ["user", "group"] } }, select: { subjectType: true, subjectId: true } });
  const users = new Set(bindings.filter((b) => b.subjectType === "user").map((b) => b.subjectId));
  const groups = [...new Set(bindings.filter((b) => b.subjectType === "group").map((b) => b.subjectId))];
  if (groups.length > 0) for (const m of await db.groupMember.findMany({ where: { tenantId, groupId: { in: groups } }, select: { userId: true } })) users.add(m.userId);
  return sorted(users);
}

export async function planChange(deps: PreviewDeps, app: App, matrix: Matrix, toolsFor: (m: Matrix, s: Access) => Set<string>, change: ProposedChange, limit: number): Promise<Plan> {
  const { db } = deps;
  const tenantId = app.tenantId;
  const warnings: Warning[] = [];
  const same = { matrixAfter: matrix, warnings, serviceAccounts: [] as ServiceAccount[], capped: false };
  switch (change.kind) {
    case "binding_add": {
      const role = await db.role.findFirst({ where: { id: change.role_id, tenantId }, select: { id: true } });
      if (!role) throw notFound("role");
      const account = change.subject_type === "service_account" ? await findServiceAccount(db, app, change.subject_id) : null;
      const subject =
        change.subject_type === "user"
          ? await db.membership.findFirst({ where: { tenantId, userId: change.subject_id }, select: { id: true } })
          : change.subject_type === "group"
            ? await db.group.findFirst({ where: { tenantId, id: change.subject_id }, select: { id: true } })
            : account;
      if (!subject) throw notFound(change.subject_type);
      // A service account's bindings are keyed by the client row's id (as the bindings API stores them).
      const subjectId = account ? account.rowId : change.subject_id;
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
            binding: { id: "previewed-binding", tenantId, roleId: change.role_id, subjectType: change.subject_type, subjectId, scopeType, scopeId: change.scope_id ?? null, expiresAtMs },
          },
        ],
        users: await subjectUsers(db, tenantId, change.subject_type, change.subject_id),
        serviceAccounts: account ? [account] : [],
      };
    }
    case "binding_remove": {
      const b = await db.roleBinding.findFirst({ where: { id: change.binding_id, tenantId }, select: { subjectType: true, subjectId: true } });
      if (!b) throw notFound("role binding");
      return {
        ...same,
        whatIf: [{ kind: "remove_binding", bindingId: change.binding_id, subjectType: b.subjectType, subjectId: b.subjectId }],
        users: await subjectUsers(db, tenantId, b.subjectType, b.subjectId),
        serviceAccounts: b.subjectType === "service_account" ? [await serviceAccount(db, app, b.subjectId)].filter((a) => a !== null) : [],
      };
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
      return { ...same, whatIf: [{ kind: "role_grants", roleId: change.role_id, resourceServerId: app.id, scopes: sorted(next) }], users: await roleHolders(db, tenantId, change.role_id), serviceAccounts: await serviceAccountHolders(db, app, change.role_id) };
    }
    case "user_suspend": {
      const m = await db.membership.findFirst({ where: { tenantId, userId: change.user_id }, select: { id: true } });
      if (!m) throw notFound("user");
      return { ...same, whatIf: [{ kind: "deactivate_user", userId: change.user_id }], users: [change.user_id] };
    }
    case "tool_public": {
      await findTool(db, app, change.tool_name);
      warnings.push({ code: "tool_becomes_public", message: `${change.tool_name} would be callable by anyone with a valid token for this application, whatever their roles` });
      return { ...same, whatIf: [], users: await allMembers(db, tenantId), serviceAccounts: await applicationServiceAccounts(db, app), matrixAfter: { ...matrix, [change.tool_name]: [] } };
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
      return { ...same, whatIf: [], users: await allMembers(db, tenantId), serviceAccounts: await applicationServiceAccounts(db, app), matrixAfter: after };
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
      return { ...same, whatIf, users: await allMembers(db, tenantId), serviceAccounts: await applicationServiceAccounts(db, app), matrixAfter: after };
    }
    case "default_role": {
      const { firstSignIn, warnings: more } = await planDefaultRole(deps, app, matrix, toolsFor, change);
      return { ...same, whatIf: [], users: [], firstSignIn, warnings: [...warnings, ...more] };
    }
    case "connection_revoke": {
      const r = await planConnectionRevoke(deps, app, change.client_id, limit);
      return {
        ...same,
        whatIf: [],
        users: r.users,
        serviceAccounts: r.serviceAccount ? [r.serviceAccount] : [],
        userAccess: { before: r.throughClient, after: async () => null },
        capped: r.capped,
        client: r.client,
      };
    }
  }
}

async function findTool(db: Db, app: { id: string; tenantId: string }, name: string) {
  const tool = await db.tool.findFirst({ where: { resourceServerId: app.id, tenantId: app.tenantId, name }, select: { id: true, isPublic: true } });
  if (!tool) throw notFound("tool");
  return tool;
}
