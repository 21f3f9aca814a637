// GET /svc/v1/applications/:id/effective-access?user_id=: the scope resolver's answer for one user
// on one application, with the path of every grant: user -> (group) -> binding -> role -> scope ->
// tool. The scopes and the binding set come from the ScopeResolver (what introspection uses); the
// tools from the compiled runtime policy (what the SDK enforces); the database is read for names.
import type { Db } from "../../storage";
import { type Actor, assertCanRead } from "../../shared/actor";
import { notFound } from "../../shared/errors";
import { findApplication } from "./application";
import { userBindings, type SimulationPorts } from "./simulation";

export interface EffectiveAccessPath {
  via: string;
  binding_id: string;
  role_id: string;
  role_name: string;
  scope_type: string | null;
  scope_id: string | null;
  expires_at: string | null;
  scopes: { scope: string; tools: string[] }[];
}

export interface ApplicationEffectiveAccess {
  application_id: string;
  application_state: string;
  user_id: string;
  user_email: string;
  /** Where the account came from: the identity provider of its most recent federated sign-in (null: Toolgate's own factors only), and when. */
  identity_provider: string | null;
  last_sign_in_at: string | null;
  active: boolean;
  membership_status: string | null;
  end_user_status: string;
  /** What the user holds on the application now (the resolver's answer; empty when not active). */
  scopes: string[];
  /** Tools the user may call now: public ones and those mapped to a held scope (none before activation). */
  tools: { tool_id: string; name: string; public: boolean; scopes: string[] }[];
  paths: EffectiveAccessPath[];
  /** Bindings that reach the application but do not count now (expired), for the record. */
  expired_bindings: { binding_id: string; role_name: string; via: string; expires_at: string | null }[];
}

export class ApplicationEffectiveAccessService {
  constructor(
    private readonly db: Db,
    private readonly ports: Pick<SimulationPorts, "resolver" | "policy">,
  ) {}

  async forUser(actor: Actor, applicationId: string, userId: string): Promise<ApplicationEffectiveAccess> {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const app = await findApplication(this.db, tenantId, applicationId);
    const user = await this.db.user.findFirst({ where: { id: userId, tenantId }, select: { id: true, email: true } });
    if (!user) throw notFound("user");
    const subject = { type: "user" as const, id: user.id };
    const { resolver } = this.ports;
    const [membership, endUser, held, effective, policy, bindings, tools, federated] = await Promise.all([
      this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: { status: true } }),
      this.db.endUserState.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: { status: true } }),
      resolver.userScopes(tenantId, app.id, userId),
      resolver.effectiveBindings({ tenantId, resourceServerId: app.id, subject }),
      this.ports.policy(app.id),
      userBindings(this.db, tenantId, app.id, userId),
      this.db.tool.findMany({ where: { resourceServerId: app.id, tenantId }, select: { id: true, name: true }, orderBy: { name: "asc" } }),
      this.db.federatedIdentity.findFirst({
        where: { tenantId, userId },
        orderBy: [{ lastSignInAt: "desc" }, { id: "asc" }],
        select: { lastSignInAt: true, provider: { select: { name: true } } },
      }),
    ]);
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
    const callable = tools.filter((t) => Object.hasOwn(matrix, t.name) && held !== null && (matrix[t.name]!.length === 0 || matrix[t.name]!.some((s) => heldSet.has(s))));
    return {
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
  }
}
