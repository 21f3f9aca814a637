// POST /svc/v1/applications/:id/access-simulations (spec "Access simulation"): may this user call
// this tool (through this client), and if not, which check stops them and what is the narrowest
// change that would let them. Nothing is written.
//
// The verdict is decided by the same code the runtime uses, never by a second implementation:
//   - the user's status and scopes: the RBAC module's ScopeResolver (what introspection asks);
//   - the client and its connection: the tokens module's judgeClient (introspection's own rule),
//     and with a client, the scopes introspection would return: ScopeResolver.allowedScopes;
//   - the tool: the compiled runtime policy the SDK fetches (sdk-policy: state, scope matrix,
//     pinned definition hashes), judged by the SDK's rule (src/sdk/tool-policy.ts decideTool:
//     policy complete, tool in the matrix, definition as pinned, public or one of its scopes held).
// test/access-simulation.test.ts checks, over random workspaces, that the verdict equals what
// introspection plus the SDK's tools/call gate decide. The database reads below only explain
// (names, expired bindings, groups); they never decide.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { type Actor, assertCanWrite } from "../../shared/actor";
import { notFound } from "../../shared/errors";
import type { ScopeResolver, IndexedBinding } from "../rbac";
import { judgeClient, type AccessTokenClaims, type TokenClient, type TokenConnection } from "../tokens";
import { auditHead, findApplication, type ApplicationRow } from "./application";

type MaybePromise<T> = T | Promise<T>;

/** What the simulation reads of the compiled runtime policy (resource-servers PolicyCache). */
export interface RuntimePolicy {
  etag: string;
  document: { state: string; generation: number; policy_complete: boolean; scope_matrix: Record<string, string[]>; definition_hashes: Record<string, string> };
}

export interface SimulationPorts {
  resolver: ScopeResolver;
  policy(resourceServerId: string): MaybePromise<RuntimePolicy | null>;
  /** Introspection's client lookup (null: unknown or revoked). */
  client(clientId: string): MaybePromise<TokenClient | null>;
  /** Introspection's connection lookup (dcr/cimd clients). */
  connection(clientId: string, resourceServerId: string): MaybePromise<TokenConnection | null>;
}

export interface SimulationInput {
  user_id: string;
  tool_id: string;
  client_id?: string;
}

export type CheckState = "ok" | "blocked" | "skipped" | "not_evaluated";

export interface TraceStep {
  check: string;
  state: CheckState;
  relevance?: "high";
  reason?: string;
  detail?: Record<string, unknown>;
}

/** The checks, in the order they are evaluated (evaluation stops at the first blocked one). */
export const SIMULATION_CHECKS = [
  "membership_active",
  "end_user_active",
  "user_active",
  "application_launched",
  "tool_mapped",
  "tool_definition_current",
  "client_connection_approved",
  "binding_not_expired",
  "role_grants_scope",
  "client_allowed_scope",
] as const;

export interface MatchedBinding {
  binding_id: string;
  role_id: string;
  role_name: string;
  subject: string;
  subject_id: string;
  via: string;
  scope_type: string | null;
  scope_id: string | null;
  expires_at: string | null;
  scopes: string[];
}

/** A fix in the access change preview's vocabulary (src/modules/access-changes/schemas.ts). */
export type FixChange =
  | { kind: "binding_add"; subject_type: "user"; subject_id: string; role_id: string; scope_type: "resource_server"; scope_id: string }
  | { kind: "tool_mapping"; tool_name: string; scope_ids: string[] };

/** What the simulation reads of a change preview (its summary and warnings). */
export interface ChangePreviewSummary {
  summary: { users_gaining: number; users_losing: number; scopes_gained: string[]; scopes_lost: string[]; tools_gained: string[]; tools_lost: string[] };
  warnings: { code: string; message: string }[];
}

/** The access change preview (injected by the composition root: AccessChangeService.preview). */
export type ChangePreviewPort = (actor: Actor, applicationId: string, change: FixChange) => Promise<ChangePreviewSummary>;

/** Who gains and loses what if the fix were applied: the change preview's answer, never the simulation's own. */
export interface FixImpact extends ChangePreviewSummary {
  change: FixChange;
}

export interface Fix {
  kind: string;
  [k: string]: unknown;
  /** Users and tools gained and lost if the fix were applied, from the access change preview; null for kinds it has no vocabulary for. */
  impact: FixImpact | null;
}

export interface SimulationResult {
  decision_id: string;
  evaluated_at: string;
  inputs: { user_id: string; tool_id: string; client_id: string | null };
  policy_revision: { policy_etag: string | null; scan_generation: number; audit_seq: number };
  verdict: "allowed" | "denied";
  failed_condition: string | null;
  safest_fix: string | null;
  fix: Fix | null;
  tool: { tool_id: string; name: string; public: boolean; scopes: string[] };
  required_scopes: string[];
  effective_scopes: string[];
  decision_trace: TraceStep[];
  matched_bindings: MatchedBinding[];
}

interface Facts {
  app: ApplicationRow;
  user: { id: string; email: string };
  membershipStatus: string | null;
  endUserStatus: string;
  active: boolean;
  policy: RuntimePolicy | null;
  tool: { id: string; name: string; isPublic: boolean; approvedDefinitionHash: string | null; liveDefinitionHash: string | null; scopeKeys: string[] };
  /** Bindings of the user (direct and through groups), expired ones included, with their role's scopes here. */
  allBindings: MatchedBinding[];
  effectiveBindingIds: Set<string>;
  held: string[];
  client: { id: string; given: TokenClient | null; connection: TokenConnection | null; verdictOk: boolean; allowed: string[] | null } | null;
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

export class AccessSimulationService {
  constructor(
    private readonly db: Db,
    private readonly ports: SimulationPorts,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly preview: ChangePreviewPort,
  ) {}

  async simulate(actor: Actor, applicationId: string, input: SimulationInput): Promise<SimulationResult> {
    assertCanWrite(actor); // spec: "admin JWT and workspace admin or owner role" (docs/decisions/0032)
    const facts = await this.facts(actor.tenantId, applicationId, input);
    const needs = Object.hasOwn(facts.policy?.document.scope_matrix ?? {}, facts.tool.name) ? facts.policy!.document.scope_matrix[facts.tool.name]! : undefined;
    const required = needs ?? sorted(facts.tool.scopeKeys);
    const effective = facts.client ? (facts.client.allowed ?? []) : facts.active ? facts.held : [];
    const trace: TraceStep[] = [];
    let failed: { condition: string; fix: Fix | null } | null = null;
    const step = (s: TraceStep, onBlocked?: { condition: string; fix: Fix | null }) => {
      if (failed) return void trace.push({ check: s.check, state: "not_evaluated" });
      trace.push(s);
      if (s.state === "blocked") {
        s.relevance = "high";
        failed = onBlocked ?? { condition: s.check, fix: null };
      }
    };

    // The user: an active membership and an end-user state that is not suspended (the resolver's isActive).
    const member = facts.membershipStatus === "active";
    step(
      { check: "membership_active", state: member ? "ok" : "blocked", detail: { membership_status: facts.membershipStatus } },
      { condition: facts.membershipStatus === null ? "not_a_member" : "membership_not_active", fix: facts.membershipStatus === null ? { kind: "add_membership", user_id: facts.user.id, impact: null } : { kind: "reactivate_membership", user_id: facts.user.id, impact: null } },
    );
    step(
      { check: "end_user_active", state: facts.endUserStatus === "suspended" ? "blocked" : "ok", detail: { end_user_status: facts.endUserStatus } },
      { condition: "end_user_suspended", fix: { kind: "reactivate_end_user", user_id: facts.user.id, impact: null } },
    );
    step(
      { check: "user_active", state: facts.active ? "ok" : "blocked", detail: { source: "scope_resolver" } },
      { condition: "user_not_active", fix: null },
    );

    // The compiled runtime policy, as the SDK receives it.
    const doc = facts.policy?.document;
    step(
      { check: "application_launched", state: doc?.policy_complete ? "ok" : "blocked", detail: { state: facts.app.state } },
      { condition: "application_not_launched", fix: { kind: "activate_application", application_id: facts.app.id, impact: null } },
    );
    step(
      { check: "tool_mapped", state: needs !== undefined ? "ok" : "blocked", detail: { tool_name: facts.tool.name, scopes: required, public: facts.tool.isPublic } },
      { condition: "tool_not_mapped", fix: { kind: "map_tool_to_scope", application_id: facts.app.id, tool_id: facts.tool.id, tool_name: facts.tool.name, suggested_scope_ids: facts.held, impact: null } },
    );
    const pinned = doc && Object.hasOwn(doc.definition_hashes, facts.tool.name) ? doc.definition_hashes[facts.tool.name] : undefined;
    const current = pinned === undefined || facts.tool.liveDefinitionHash === pinned;
    step(
      { check: "tool_definition_current", state: current ? "ok" : "blocked", detail: { pinned_hash: pinned ?? null, live_hash: facts.tool.liveDefinitionHash } },
      { condition: "tool_definition_changed", fix: { kind: "approve_tool_definition", application_id: facts.app.id, tool_id: facts.tool.id, impact: null } },
    );

    // The client, judged by introspection's own rule.
    const c = facts.client;
    if (!c) step({ check: "client_connection_approved", state: "skipped", reason: "no client_id given" });
    else step({ check: "client_connection_approved", state: c.verdictOk ? "ok" : "blocked", detail: clientDetail(c) }, clientFailure(c, facts.app.id));

    // Scopes: public tools need none; otherwise one of the tool's scopes, held through a binding that counts now.
    const isPublic = needs !== undefined && needs.length === 0;
    const grantsNeeded = (b: MatchedBinding) => b.scopes.some((s) => required.includes(s));
    const matched = facts.allBindings.filter((b) => facts.effectiveBindingIds.has(b.binding_id) && grantsNeeded(b));
    const heldNeeded = facts.held.some((s) => required.includes(s));
    if (isPublic) {
      step({ check: "binding_not_expired", state: "skipped", reason: "the tool is public" });
      step({ check: "role_grants_scope", state: "skipped", reason: "the tool is public" });
      step({ check: "client_allowed_scope", state: "skipped", reason: "the tool is public" });
    } else {
      const expiredGranting = facts.allBindings.filter((b) => !facts.effectiveBindingIds.has(b.binding_id) && b.expires_at !== null && Date.parse(b.expires_at) <= this.clock.now().getTime() && grantsNeeded(b));
      step(
        {
          check: "binding_not_expired",
          state: !heldNeeded && expiredGranting.length > 0 ? "blocked" : "ok",
          detail: { bindings: facts.allBindings.map((b) => ({ binding_id: b.binding_id, via: b.via, role_name: b.role_name, expires_at: b.expires_at, counts_now: facts.effectiveBindingIds.has(b.binding_id) })) },
        },
        { condition: "binding_expired", fix: expiredGranting[0] ? { kind: "extend_binding", binding_id: expiredGranting[0].binding_id, role_id: expiredGranting[0].role_id, impact: null } : null },
      );
      const roles = facts.allBindings.filter((b) => facts.effectiveBindingIds.has(b.binding_id)).map((b) => ({ role_id: b.role_id, role_name: b.role_name, scopes: b.scopes, via: b.via }));
      step(
        { check: "role_grants_scope", state: heldNeeded ? "ok" : "blocked", detail: { roles, held: facts.held, missing: heldNeeded ? [] : required } },
        { condition: "missing_role_scope", fix: failed || heldNeeded ? null : await this.scopeFix(facts, required) },
      );
      if (!c) step({ check: "client_allowed_scope", state: "skipped", reason: "no client_id given" });
      else {
        const ok = effective.some((s) => required.includes(s));
        step(
          { check: "client_allowed_scope", state: ok ? "ok" : "blocked", detail: { client_allowed_scopes: sorted(c.given?.allowedScopeSet ?? []), effective_scopes: effective } },
          { condition: "client_scope_not_allowed", fix: { kind: "allow_client_scope", client_id: c.id, scope_id: required.find((s) => facts.held.includes(s)) ?? required[0] ?? null, impact: null } },
        );
      }
    }

    const f = failed as { condition: string; fix: Fix | null } | null;
    if (f?.fix) {
      const change = asChange(f.fix);
      if (change) {
        const p = await this.preview(actor, facts.app.id, change);
        f.fix.impact = { change, summary: p.summary, warnings: p.warnings };
      }
    }
    return {
      decision_id: `sim_${this.ids.uuid()}`,
      evaluated_at: this.clock.now().toISOString(),
      inputs: { user_id: input.user_id, tool_id: input.tool_id, client_id: input.client_id ?? null },
      policy_revision: { policy_etag: facts.policy?.etag ?? null, scan_generation: facts.app.scanGeneration, audit_seq: await auditHead(this.db, actor.tenantId) },
      verdict: f ? "denied" : "allowed",
      failed_condition: f?.condition ?? null,
      safest_fix: f ? describeFix(f.condition, f.fix, facts, required) : null,
      fix: f?.fix ?? null,
      tool: { tool_id: facts.tool.id, name: facts.tool.name, public: facts.tool.isPublic, scopes: required },
      required_scopes: required,
      effective_scopes: effective,
      decision_trace: trace,
      matched_bindings: matched,
    };
  }

  /** The narrowest grant: bind this user alone, on this application only, to the existing role that grants a needed scope with the fewest scopes here. */
  private async scopeFix(facts: Facts, required: string[]): Promise<Fix> {
    const grants = await this.db.roleGrant.findMany({
      where: { tenantId: facts.app.tenantId, resourceServerId: facts.app.id, scopeKey: { in: required } },
      select: { roleId: true, role: { select: { name: true } } },
    });
    const roleIds = sorted(grants.map((g) => g.roleId));
    if (roleIds.length > 0) {
      const counts = await this.db.roleGrant.groupBy({ by: ["roleId"], where: { roleId: { in: roleIds }, resourceServerId: facts.app.id }, _count: { _all: true } });
      const size = new Map(counts.map((c) => [c.roleId, c._count._all]));
      const name = new Map(grants.map((g) => [g.roleId, g.role.name]));
      roleIds.sort((a, b) => size.get(a)! - size.get(b)! || (name.get(a)! < name.get(b)! ? -1 : 1));
      const roleId = roleIds[0]!;
      return { kind: "add_binding", subject: "user", subject_id: facts.user.id, role_id: roleId, role_name: name.get(roleId), scope_type: "resource_server", scope_id: facts.app.id, impact: null };
    }
    return { kind: "create_role_and_bind", grants: [{ resource_server_id: facts.app.id, scope_ids: [required[0]] }], subject: "user", subject_id: facts.user.id, scope_type: "resource_server", scope_id: facts.app.id, impact: null };
  }

  private async facts(tenantId: string, applicationId: string, input: SimulationInput): Promise<Facts> {
    const app = await findApplication(this.db, tenantId, applicationId);
    const [user, tool] = await Promise.all([
      this.db.user.findFirst({ where: { id: input.user_id, tenantId }, select: { id: true, email: true } }),
      this.db.tool.findFirst({
        where: { id: input.tool_id, resourceServerId: app.id, tenantId },
        select: { id: true, name: true, isPublic: true, approvedDefinitionHash: true, liveDefinitionHash: true, scopes: { select: { scope: { select: { key: true } } } } },
      }),
    ]);
    if (!user) throw notFound("user");
    if (!tool) throw notFound("tool");
    const subject = { type: "user" as const, id: user.id };
    const q = { tenantId, resourceServerId: app.id, subject };
    const { resolver } = this.ports;
    const [membership, endUser, active, held, effective, policy, allBindings] = await Promise.all([
      this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId: user.id } }, select: { status: true } }),
      this.db.endUserState.findUnique({ where: { tenantId_userId: { tenantId, userId: user.id } }, select: { status: true } }),
      resolver.isActive({ tenantId, subject }),
      resolver.userScopes(tenantId, app.id, user.id),
      resolver.effectiveBindings(q),
      this.ports.policy(app.id),
      userBindings(this.db, tenantId, app.id, user.id),
    ]);
    let client: Facts["client"] = null;
    if (input.client_id !== undefined) {
      const given = await this.ports.client(input.client_id);
      const connection = given?.tenantId === null ? await this.ports.connection(given.clientId, app.id) : null;
      const claims = { tenant_id: tenantId } as AccessTokenClaims;
      const verdictOk = judgeClient({ id: app.id, tenantId, resourceUrl: app.resourceUrl }, claims, given, connection) === undefined;
      // What introspection would return for a user token of this client (before the token's own scopes).
      const allowed = verdictOk && given ? await resolver.allowedScopes({ sub: user.id, tenant_id: tenantId, sub_type: "user" }, given, { id: app.id }) : null;
      client = { id: input.client_id, given, connection, verdictOk, allowed: allowed ? sorted(allowed) : null };
    }
    return {
      app,
      user,
      membershipStatus: membership?.status ?? null,
      endUserStatus: endUser?.status ?? "active",
      active,
      policy,
      tool: { ...tool, scopeKeys: tool.scopes.map((s) => s.scope.key) },
      allBindings,
      effectiveBindingIds: new Set(effective.map((b: IndexedBinding) => b.id)),
      held: held ? sorted(held) : [],
      client,
    };
  }
}

/** Every binding of the user in the workspace that could reach the application (direct and through groups, expired ones too). */
export async function userBindings(db: Db, tenantId: string, resourceServerId: string, userId: string): Promise<MatchedBinding[]> {
  const groups = await db.groupMember.findMany({ where: { tenantId, userId }, select: { groupId: true, group: { select: { name: true } } } });
  const groupName = new Map(groups.map((g) => [g.groupId, g.group.name]));
  const rows = await db.roleBinding.findMany({
    where: {
      tenantId,
      OR: [{ subjectType: "user", subjectId: userId }, ...(groups.length ? [{ subjectType: "group", subjectId: { in: groups.map((g) => g.groupId) } }] : [])],
      AND: [{ OR: [{ scopeType: null }, { scopeType: "*" }, { scopeType: "resource_server", scopeId: resourceServerId }] }],
    },
    select: { id: true, roleId: true, subjectType: true, subjectId: true, scopeType: true, scopeId: true, expiresAt: true, role: { select: { name: true, grants: { where: { resourceServerId }, select: { scopeKey: true } } } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((b) => ({
    binding_id: b.id,
    role_id: b.roleId,
    role_name: b.role.name,
    subject: b.subjectType,
    subject_id: b.subjectId,
    via: b.subjectType === "group" ? `group:${groupName.get(b.subjectId) ?? b.subjectId}` : "direct",
    scope_type: b.scopeType,
    scope_id: b.scopeId,
    expires_at: b.expiresAt?.toISOString() ?? null,
    scopes: sorted(b.role.grants.map((g) => g.scopeKey)),
  }));
}

function clientDetail(c: NonNullable<Facts["client"]>): Record<string, unknown> {
  return {
    client_id: c.id,
    found: c.given !== null,
    status: c.given?.status ?? null,
    registration_mode: c.given ? (c.given.tenantId === null ? "dcr_or_cimd" : "prereg") : null,
    connection_status: c.connection?.status ?? null,
  };
}

function clientFailure(c: NonNullable<Facts["client"]>, applicationId: string): { condition: string; fix: Fix | null } {
  if (!c.given) return { condition: "client_unknown_or_revoked", fix: null };
  if (c.given.status !== "approved") return { condition: "client_not_approved", fix: { kind: "approve_client", client_id: c.id, impact: null } };
  if (c.given.tenantId === null) {
    return c.connection
      ? { condition: "connection_not_approved", fix: { kind: "approve_connection", client_id: c.id, application_id: applicationId, impact: null } }
      : { condition: "no_connection", fix: null };
  }
  return { condition: "client_not_for_application", fix: null };
}

function describeFix(condition: string, fix: Fix | null, facts: Facts, required: string[]): string {
  const who = facts.user.email;
  switch (fix?.kind) {
    case "add_binding":
      return `Bind ${who} directly to role ${String(fix.role_name)} on ${facts.app.name} only (grants ${required.join(" or ")}; affects this user alone)`;
    case "create_role_and_bind":
      return `No role grants ${required.join(" or ")} on ${facts.app.name}: create a role granting ${required[0]} and bind ${who} to it on this application only`;
    case "extend_binding":
      return `Extend (or re-create) the expired binding ${String(fix.binding_id)} of role ${facts.allBindings.find((b) => b.binding_id === fix.binding_id)?.role_name ?? ""}`;
    case "reactivate_membership":
      return `Reactivate ${who}'s membership in the workspace (status ${facts.membershipStatus})`;
    case "add_membership":
      return `Add ${who} to the workspace as a member`;
    case "reactivate_end_user":
      return `Reactivate the end user ${who} (suspended)`;
    case "activate_application":
      return `Complete the setup of ${facts.app.name} and activate it (state ${facts.app.state})`;
    case "map_tool_to_scope":
      return `Map the tool ${facts.tool.name} to a scope (it is denied to everyone until mapped)`;
    case "approve_tool_definition":
      return `Review and approve the changed definition of the tool ${facts.tool.name}`;
    case "approve_client":
      return `Approve the client ${String(fix.client_id)}`;
    case "approve_connection":
      return `Approve the connection of client ${String(fix.client_id)} to ${facts.app.name}`;
    case "allow_client_scope":
      return `Allow the client ${String(fix.client_id)} the scope ${String(fix.scope_id)}`;
    default:
      return `No safe automatic fix: ${condition.replaceAll("_", " ")}`;
  }
}

/** The fix as a change the access change preview understands; null for kinds it has no vocabulary for. */
function asChange(fix: Fix): FixChange | null {
  if (fix.kind === "add_binding") {
    return { kind: "binding_add", subject_type: "user", subject_id: fix.subject_id as string, role_id: fix.role_id as string, scope_type: "resource_server", scope_id: fix.scope_id as string };
  }
  if (fix.kind === "map_tool_to_scope") {
    const scopeIds = fix.suggested_scope_ids as string[];
    return scopeIds.length > 0 ? { kind: "tool_mapping", tool_name: fix.tool_name as string, scope_ids: scopeIds } : null;
  }
  return null;
}
