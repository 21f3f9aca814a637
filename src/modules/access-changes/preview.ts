// Change previews: who gains and who loses which scopes and tools on an application if a proposed
// change were made, with warnings when protection weakens. Nothing is written.
//
// The answer is computed by THE scope resolver twice: as it is (rbac ScopeResolver.userScopes) and
// as if the change were made (ScopeResolver.whatIf over the same caches), and the tools by the
// runtime's rule over the served policy's scope matrix (a tool mapped to [] is public; otherwise
// the caller holds one of its scopes; a user who may hold nothing calls nothing; an application that
// is not launched serves no tool). Only subjects whose access the change can touch are evaluated
// (plan.ts). Service accounts (pre-registered clients) are evaluated the same way, as introspection
// judges their own tokens. A connection revoke compares what users' tokens of that client are worth
// now with nothing (connection-revoke.ts); a default-role change touches nobody now, only first
// sign-ins to come (default-role.ts).
// Exported as previewChange() so the access simulation can price its fix (issue 22, item 7).
import type { Actor } from "../../shared/actor";
import { assertCanWrite } from "../../shared/actor";
import { planChange, type Matrix, type PreviewDeps } from "./plan";
import { clientScopes } from "./service-accounts";
import type { FirstSignIn } from "./default-role";
import type { RevokedClient } from "./connection-revoke";
import type { ProposedChange } from "./schemas";

export type { PreviewDeps } from "./plan";

interface ScopesAndTools {
  scopes: string[];
  tools: string[];
}

export interface UserDelta {
  user_id: string;
  gains: ScopesAndTools;
  losses: ScopesAndTools;
}

/** A service account's (a pre-registered client's own tokens) change, by OAuth client_id. */
export interface ServiceAccountDelta {
  client_id: string;
  gains: ScopesAndTools;
  losses: ScopesAndTools;
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
  /** The users' figures (service accounts are in `service_accounts`, never truncated). */
  summary: {
    users_gaining: number;
    users_losing: number;
    scopes_gained: string[];
    scopes_lost: string[];
    tools_gained: string[];
    tools_lost: string[];
  };
  /** Users whose access changes, by user_id; at most MAX_LISTED (see `truncated`). */
  users: UserDelta[];
  /** Service accounts whose access changes. */
  service_accounts: ServiceAccountDelta[];
  truncated: boolean;
  warnings: Warning[];
  /** default_role: what a first sign-in grants before and after (nobody's current access changes). */
  first_sign_in: FirstSignIn | null;
  /** connection_revoke: the client revoked; `users` are the users known to use it here, losing what they could call through it. */
  client: RevokedClient | null;
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

/** Gains and losses between two states (null: may hold nothing, so calls nothing). */
function delta(m0: Matrix, m1: Matrix, complete: boolean, s0: ReadonlySet<string> | null, s1: ReadonlySet<string> | null) {
  const t0 = toolsFor(m0, complete, s0);
  const t1 = toolsFor(m1, complete, s1);
  const a0 = s0 ?? new Set<string>();
  const a1 = s1 ?? new Set<string>();
  return { gains: { scopes: minus(a1, a0), tools: minus(t1, t0) }, losses: { scopes: minus(a0, a1), tools: minus(t0, t1) } };
}
const any = (x: ScopesAndTools) => x.scopes.length + x.tools.length > 0;

export async function previewChange(deps: PreviewDeps, actor: Actor, applicationId: string, change: ProposedChange): Promise<ChangePreview> {
  // Spec "Authentication" 3: the aggregate /v1 endpoints need the admin or owner role (decision 0034).
  assertCanWrite(actor);
  const app = await deps.findApplication(actor, applicationId);
  const policy = await deps.policy(app.id);
  const matrix: Matrix = policy?.scope_matrix ?? {};
  const complete = policy?.policy_complete ?? false;
  const plan = await planChange(deps, app, matrix, (m, s) => toolsFor(m, complete, s), change, MAX_LISTED);
  if (!complete) plan.warnings.push({ code: "application_not_launched", message: "the application is not launched: runtimes deny every tool until activation, so only scopes change now" });
  const after = await deps.resolver.whatIf(app.tenantId, plan.whatIf);
  const deltas: UserDelta[] = [];
  const gained = { scopes: new Set<string>(), tools: new Set<string>() };
  const lost = { scopes: new Set<string>(), tools: new Set<string>() };
  const tally = (d: { gains: ScopesAndTools; losses: ScopesAndTools }) => {
    d.gains.scopes.forEach((s) => gained.scopes.add(s));
    d.gains.tools.forEach((s) => gained.tools.add(s));
    d.losses.scopes.forEach((s) => lost.scopes.add(s));
    d.losses.tools.forEach((s) => lost.tools.add(s));
  };
  let gaining = 0;
  let losing = 0;
  const holdersAfter = new Map<string, number>();
  let activeAfter = 0;
  for (const userId of plan.users) {
    const s0 = plan.userAccess ? await plan.userAccess.before(userId) : await deps.resolver.userScopes(app.tenantId, app.id, userId);
    const s1 = plan.userAccess ? await plan.userAccess.after(userId) : await after.userScopes(app.tenantId, app.id, userId);
    if (s1 !== null) {
      activeAfter++;
      for (const s of s1) holdersAfter.set(s, (holdersAfter.get(s) ?? 0) + 1);
    }
    const d: UserDelta = { user_id: userId, ...delta(matrix, plan.matrixAfter, complete, s0, s1) };
    if (!any(d.gains) && !any(d.losses)) continue;
    if (any(d.gains)) gaining++;
    if (any(d.losses)) losing++;
    tally(d);
    deltas.push(d);
  }
  const accounts: ServiceAccountDelta[] = [];
  for (const sa of plan.serviceAccounts) {
    const s0 = await clientScopes(deps.resolver, app, sa, sa.reachable);
    const s1 = await clientScopes(after, app, sa, sa.reachableAfter);
    const d = { client_id: sa.clientId, ...delta(matrix, plan.matrixAfter, complete, s0, s1) };
    if (!any(d.gains) && !any(d.losses)) continue;
    accounts.push(d);
  }
  // A scope gained that every active member of the workspace would hold.
  if (plan.users.length > 1 && activeAfter > 1 && !plan.userAccess) {
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
    summary: {
      users_gaining: gaining,
      users_losing: losing,
      scopes_gained: sorted(gained.scopes),
      scopes_lost: sorted(lost.scopes),
      tools_gained: sorted(gained.tools),
      tools_lost: sorted(lost.tools),
    },
    users: deltas.slice(0, MAX_LISTED),
    service_accounts: accounts,
    truncated: deltas.length > MAX_LISTED || plan.capped,
    warnings: plan.warnings,
    first_sign_in: plan.firstSignIn ?? null,
    client: plan.client ?? null,
  };
}
