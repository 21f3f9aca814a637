// The `default_role` change: the application's access policy (PUT .../access-policy). The default
// role is not evaluated per request: a user's FIRST sign-in to the application creates a binding of
// the role in force then, scoped to the application (signin/first-time-grant.ts, source
// "first_time_grant"), and later policy changes leave those bindings untouched (spec drift event
// `default_role_changed`: "only users who log in after the change get the new role"). So nobody's
// access changes when the policy does: the preview's `users` is empty, and `first_sign_in` says
// what a first sign-in grants before and after, to how many members who have not signed in yet,
// and how many users hold access through a first-time grant already (they keep it). Counted in SQL.
import { sqltag as sql } from "@prisma/client/runtime/client";
import type { Db } from "../../storage";
import { badRequest, notFound } from "../../shared/errors";
import type { ScopeResolver } from "../rbac";
import type { ProposedChange } from "./schemas";

type Matrix = Record<string, string[]>;
type Change = Extract<ProposedChange, { kind: "default_role" }>;

export interface FirstSignInGrant {
  /** The role a first sign-in binds (null: none: policy disabled, no role, or first_time_grant "none"), its scopes here and the tools they unlock (public ones aside). */
  role_id: string | null;
  scopes: string[];
  tools: string[];
}

export interface FirstSignIn {
  before: FirstSignInGrant;
  after: FirstSignInGrant;
  /** Active members who have not signed in to the application yet: their first sign-in gets `after`. */
  members_not_signed_in: number;
  /** Users (active members) holding a first-time-grant binding on the application: unchanged by the change. */
  users_holding_first_time_grant: number;
}

const n = (v: unknown) => Number(v ?? 0);
const sorted = (s: Iterable<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export async function planDefaultRole(
  deps: { db: Db; resolver: ScopeResolver },
  app: { id: string; tenantId: string },
  matrix: Matrix,
  toolsFor: (m: Matrix, scopes: ReadonlySet<string> | null) => Set<string>,
  change: Change,
): Promise<{ firstSignIn: FirstSignIn; warnings: { code: "scope_reaches_everyone"; message: string }[] }> {
  const { db, resolver } = deps;
  const prior = await db.accessPolicy.findFirst({ where: { resourceServerId: app.id, tenantId: app.tenantId }, select: { enabled: true, defaultRoleId: true, firstTimeGrant: true } });
  // The same rules as AccessPolicyService.put: an omitted field keeps the current value.
  const roleId = change.default_role_id === undefined ? (prior?.defaultRoleId ?? null) : change.default_role_id;
  if (roleId !== null && !(await db.role.findFirst({ where: { id: roleId, tenantId: app.tenantId }, select: { id: true } }))) throw notFound("role");
  if (change.enabled && roleId === null) throw badRequest("change.default_role_id: is required when enabled is true");
  const firstTimeGrant = change.first_time_grant ?? prior?.firstTimeGrant ?? "default_role";
  const granted = (enabled: boolean, role: string | null, grant: string) => (enabled && grant === "default_role" ? role : null);
  // The tools the role's scopes unlock (public tools need no role: not listed).
  const open = toolsFor(matrix, new Set());
  const grant = async (role: string | null): Promise<FirstSignInGrant> => {
    const scopes = role ? await resolver.roleScopes(role, app.id) : [];
    return { role_id: role, scopes: sorted(scopes), tools: sorted([...toolsFor(matrix, new Set(scopes))].filter((t) => !open.has(t))) };
  };
  const before = await grant(prior ? granted(prior.enabled, prior.defaultRoleId, prior.firstTimeGrant) : null);
  const after = await grant(granted(change.enabled, roleId, firstTimeGrant));
  const [notSignedIn, holding] = await Promise.all([
    db.$queryRaw<{ n: bigint }[]>`SELECT COUNT(*) AS n FROM "Membership" m
      WHERE m."tenantId" = ${app.tenantId} AND m."status" = 'active'
        AND NOT EXISTS (SELECT 1 FROM "ServerSignIn" s WHERE s."userId" = m."userId" AND s."resourceServerId" = ${app.id})`,
    db.$queryRaw<{ n: bigint }[]>(sql`SELECT COUNT(DISTINCT b."subjectId") AS n FROM "RoleBinding" b
      JOIN "Membership" m ON m."tenantId" = b."tenantId" AND m."userId" = b."subjectId" AND m."status" = 'active'
      WHERE b."tenantId" = ${app.tenantId} AND b."source" = 'first_time_grant' AND b."subjectType" = 'user'
        AND b."scopeType" = 'resource_server' AND b."scopeId" = ${app.id}`),
  ]);
  const firstSignIn = { before, after, members_not_signed_in: n(notSignedIn[0]?.n), users_holding_first_time_grant: n(holding[0]?.n) };
  // Protection weakens: a scope every member's first sign-in would grant that it does not grant now.
  const was = new Set(before.scopes);
  const warnings = after.scopes
    .filter((s) => !was.has(s))
    .map((s) => ({ code: "scope_reaches_everyone" as const, message: `every member's first sign-in to this application would grant ${s} (${firstSignIn.members_not_signed_in} active members have not signed in yet)` }));
  return { firstSignIn, warnings };
}
