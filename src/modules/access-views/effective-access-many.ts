// One user's effective access on one or many applications (GET /svc/v1/applications/:id/effective-access
// through ApplicationEffectiveAccessService.forUser, and the graph's loader for
// `resourceServers { effectiveAccess(userId) }`): read in one round of queries whatever the number
// of applications. The user's own rows are read once; the bindings reaching any of the applications
// and the tools of all of them in one query each, then split per application. The scopes and the bindings
// that count still come from the ScopeResolver and the tools from the compiled runtime policy (both
// cached per entry). test/application-access-graphql.test.ts checks the answers equal REST's.
import type { DbOrTx } from "../../storage";
import { type Actor, assertCanRead } from "../../shared/actor";
import { notFound } from "../../shared/errors";
import type { ApplicationEffectiveAccess, EffectiveAccessPath } from "./effective-access";
import type { SimulationPorts } from "./simulation";

/** What the reader needs: the root client or the graph's tenant-scoped reader. */
export interface EffectiveAccessReader {
  resourceServer: Pick<DbOrTx["resourceServer"], "findMany">;
  user: Pick<DbOrTx["user"], "findFirst">;
  membership: Pick<DbOrTx["membership"], "findFirst">;
  endUserState: Pick<DbOrTx["endUserState"], "findFirst">;
  federatedIdentity: Pick<DbOrTx["federatedIdentity"], "findFirst">;
  groupMember: Pick<DbOrTx["groupMember"], "findMany">;
  roleBinding: Pick<DbOrTx["roleBinding"], "findMany">;
  tool: Pick<DbOrTx["tool"], "findMany">;
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/**
 * The effective access of `userId` on each application of `applicationIds` (in that order; null for
 * an id that is not a live application of the actor's workspace). Unknown user: not found, as REST.
 */
export async function effectiveAccessOnApplications(
  reader: EffectiveAccessReader,
  ports: Pick<SimulationPorts, "resolver" | "policy">,
  actor: Actor,
  userId: string,
  applicationIds: readonly string[],
): Promise<(ApplicationEffectiveAccess | null)[]> {
  assertCanRead(actor);
  const tenantId = actor.tenantId;
  const [apps, user, membership, endUser, federated, groups] = await Promise.all([
    reader.resourceServer.findMany({ where: { tenantId, id: { in: [...applicationIds] }, deletedAt: null }, select: { id: true, state: true } }),
    reader.user.findFirst({ where: { id: userId, tenantId }, select: { id: true, email: true } }),
    reader.membership.findFirst({ where: { tenantId, userId }, select: { status: true } }),
    reader.endUserState.findFirst({ where: { tenantId, userId }, select: { status: true } }),
    reader.federatedIdentity.findFirst({
      where: { tenantId, userId },
      orderBy: [{ lastSignInAt: "desc" }, { id: "asc" }],
      select: { lastSignInAt: true, provider: { select: { name: true } } },
    }),
    reader.groupMember.findMany({ where: { tenantId, userId }, select: { groupId: true, group: { select: { name: true } } } }),
  ]);
  if (!user) throw notFound("user");
  const appIds = apps.map((a) => a.id);
  const groupName = new Map(groups.map((g) => [g.groupId, g.group.name]));
  // simulation.ts userBindings(), for every application at once: the user's and their groups'
  // bindings that may reach one of them, with the role's grants on each.
  const [bindingRows, toolRows] = await Promise.all([
    reader.roleBinding.findMany({
      where: {
        tenantId,
        OR: [{ subjectType: "user", subjectId: userId }, ...(groups.length ? [{ subjectType: "group", subjectId: { in: groups.map((g) => g.groupId) } }] : [])],
        AND: [{ OR: [{ scopeType: null }, { scopeType: "*" }, { scopeType: "resource_server", scopeId: { in: appIds } }] }],
      },
      select: {
        id: true, roleId: true, subjectType: true, subjectId: true, scopeType: true, scopeId: true, expiresAt: true,
        role: { select: { name: true, grants: { where: { resourceServerId: { in: appIds } }, select: { scopeKey: true, resourceServerId: true } } } },
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    reader.tool.findMany({ where: { resourceServerId: { in: appIds }, tenantId }, select: { id: true, name: true, resourceServerId: true }, orderBy: { name: "asc" } }),
  ]);
  const { resolver } = ports;
  const subject = { type: "user" as const, id: user.id };
  const byId = new Map(
    await Promise.all(
      apps.map(async (app) => {
        const [held, effective, policy] = await Promise.all([
          resolver.userScopes(tenantId, app.id, userId),
          resolver.effectiveBindings({ tenantId, resourceServerId: app.id, subject }),
          ports.policy(app.id),
        ]);
        const bindings = bindingRows
          .filter((b) => b.scopeType === null || b.scopeType === "*" || (b.scopeType === "resource_server" && b.scopeId === app.id))
          .map((b) => ({
            binding_id: b.id,
            role_id: b.roleId,
            role_name: b.role.name,
            via: b.subjectType === "group" ? `group:${groupName.get(b.subjectId) ?? b.subjectId}` : "direct",
            scope_type: b.scopeType,
            scope_id: b.scopeId,
            expires_at: b.expiresAt?.toISOString() ?? null,
            scopes: sorted(b.role.grants.filter((g) => g.resourceServerId === app.id).map((g) => g.scopeKey)),
          }));
        const matrix = policy?.document.policy_complete ? policy.document.scope_matrix : {};
        const heldSet = new Set(held ?? []);
        const toolsOfScope = new Map<string, string[]>();
        for (const [tool, scopes] of Object.entries(matrix)) for (const s of scopes) toolsOfScope.set(s, [...(toolsOfScope.get(s) ?? []), tool]);
        const counts = new Set(effective.map((b) => b.id));
        const paths: EffectiveAccessPath[] = bindings
          .filter((b) => counts.has(b.binding_id))
          .map((b) => ({
            via: b.via,
            binding_id: b.binding_id,
            role_id: b.role_id,
            role_name: b.role_name,
            scope_type: b.scope_type,
            scope_id: b.scope_id,
            expires_at: b.expires_at,
            scopes: b.scopes.filter((s) => heldSet.has(s)).map((s) => ({ scope: s, tools: (toolsOfScope.get(s) ?? []).sort() })),
          }));
        const tools = toolRows.filter((t) => t.resourceServerId === app.id);
        const callable = tools.filter((t) => Object.hasOwn(matrix, t.name) && held !== null && (matrix[t.name]!.length === 0 || matrix[t.name]!.some((s) => heldSet.has(s))));
        const answer: ApplicationEffectiveAccess = {
          application_id: app.id,
          application_state: app.state,
          user_id: user.id,
          user_email: user.email,
          identity_provider: federated?.provider.name ?? null,
          last_sign_in_at: federated?.lastSignInAt.toISOString() ?? null,
          active: held !== null,
          membership_status: membership?.status ?? null,
          end_user_status: endUser?.status ?? "active",
          scopes: [...heldSet].sort(),
          tools: callable.map((t) => ({ tool_id: t.id, name: t.name, public: matrix[t.name]!.length === 0, scopes: matrix[t.name]! })),
          paths,
          expired_bindings: bindings.filter((b) => !counts.has(b.binding_id)).map((b) => ({ binding_id: b.binding_id, role_name: b.role_name, via: b.via, expires_at: b.expires_at })),
        };
        return [app.id, answer] as const;
      }),
    ),
  );
  return applicationIds.map((id) => byId.get(id) ?? null);
}
