// THE scope resolver: what a subject may hold now on one resource server. Introspection uses it on
// every call and access simulations decide with it, so both always agree (spec "Access simulation":
// "the same scope resolver that runtime policy uses").
//
// Rules:
// - A user holds the scopes granted on the server by the roles of their effective bindings, direct
//   or through a group, that apply to the server: tenant-wide (scope_type null or "*") or scoped
//   to exactly this server. A binding whose expires_at is at or before now does not count.
// - A user who is not an active member of the workspace (invited, suspended, left, removed) or
//   whose end-user state is suspended holds nothing, and isActive() is false.
// - A machine client holds its allowed scopes plus what its service-account bindings grant.
//
// Hot path: answers from an in-memory snapshot (no database query per call, notes/performance.md).
// Every write that can change an answer bumps the "access" cache version in its transaction and
// calls notifyLocal("access") after commit, which reloads the snapshot here before the write's
// caller gets its response; other instances reload on their next CacheVersions poll. Expiry is
// evaluated at call time with the injected clock, so an expiring binding needs no write at all.
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import type { Clock } from "../../shared/clock";
import { coalescedReload } from "../../shared/coalesced-reload";
import { EMPTY_SNAPSHOT, loadAccessSnapshot, memberKey, subjectKey, type AccessSnapshot, type IndexedBinding } from "./access-snapshot";

export type AccessSubject =
  | { type: "user"; id: string }
  /** clientId is the OAuth client_id (the token's client_id claim); allowedScopes come from the client record. */
  | { type: "client"; clientId: string; allowedScopes: readonly string[] | ReadonlySet<string> };

export interface SubjectQuery {
  tenantId: string;
  subject: AccessSubject;
}

export interface ScopeQuery extends SubjectQuery {
  resourceServerId: string;
}

const NOTHING: ReadonlySet<string> = new Set();

export class ScopeResolver {
  private snapshot: AccessSnapshot = EMPTY_SNAPSHOT;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    versions: CacheVersions,
  ) {
    versions.on("access", () => this.load());
  }

  /**
   * (Re)builds the snapshot from the database. Called at start and by the "access" cache version.
   * Coalesced (shared/coalesced-reload.ts): a writer that awaits it sees its own commit, and a
   * burst of writes costs at most two loads.
   */
  readonly load = coalescedReload(async () => {
    this.snapshot = await loadAccessSnapshot(this.db);
  });

  /**
   * Whether the subject may hold anything in the workspace now. For a user: an active membership
   * and an end-user state that is not suspended. A client's own status (approved/revoked) belongs
   * to the clients module, so a client is active here.
   */
  isActive(q: SubjectQuery): boolean {
    if (q.subject.type === "client") return true;
    const key = memberKey(q.tenantId, q.subject.id);
    return this.snapshot.activeMembers.has(key) && !this.snapshot.suspendedEndUsers.has(key);
  }

  /** Every scope the subject may hold now on the server (empty for an inactive user). */
  scopesFor(q: ScopeQuery): ReadonlySet<string> {
    const { subject } = q;
    if (subject.type === "client") {
      const granted = this.grantedBy(this.bindingsOfClient(q.tenantId, subject.clientId), q.tenantId, q.resourceServerId);
      // Most clients have no service-account binding: hand back their own set without copying it.
      if (granted.size === 0) return subject.allowedScopes instanceof Set ? subject.allowedScopes : new Set(subject.allowedScopes);
      for (const s of subject.allowedScopes) granted.add(s);
      return granted;
    }
    if (!this.isActive(q)) return NOTHING;
    return this.grantedBy(this.bindingsOfUser(q.tenantId, subject.id), q.tenantId, q.resourceServerId);
  }

  /**
   * Introspection's question: which of the token's scopes does the subject still hold? Keeps the
   * token's order; an inactive user keeps none.
   */
  narrow(q: ScopeQuery, tokenScopes: readonly string[]): string[] {
    const held = this.scopesFor(q);
    return tokenScopes.filter((s) => held.has(s));
  }

  /**
   * Introspection's seam (the tokens module's SubjectScopeSource, matched structurally so rbac does
   * not depend on tokens): what the token's subject may hold now on the calling server, or null
   * when a user may hold nothing at all (the token is then inactive). A user token is also bounded
   * by its client's current allowed scopes (what consent could grant through that client today),
   * so narrowing a client narrows its users' tokens too.
   */
  allowedScopes(
    token: { sub: string; tenant_id: string; sub_type?: string },
    client: { clientId: string; allowedScopeSet: ReadonlySet<string> },
    server: { id: string },
  ): ReadonlySet<string> | null {
    const kind = token.sub_type ?? "client";
    if (kind !== "user" && kind !== "client") return null; // an unknown subject type holds nothing
    const subject: AccessSubject =
      kind === "user" ? { type: "user", id: token.sub } : { type: "client", clientId: client.clientId, allowedScopes: client.allowedScopeSet };
    const q = { tenantId: token.tenant_id, resourceServerId: server.id, subject };
    if (!this.isActive(q)) return null;
    const held = this.scopesFor(q);
    if (subject.type === "client") return held;
    const out = new Set<string>();
    for (const s of held) if (client.allowedScopeSet.has(s)) out.add(s);
    return out;
  }

  /**
   * The bindings that count now for the subject on the server (for simulations' decision traces).
   * Status is not applied here: ask isActive() for that.
   */
  effectiveBindings(q: ScopeQuery): IndexedBinding[] {
    const all = q.subject.type === "user" ? this.bindingsOfUser(q.tenantId, q.subject.id) : this.bindingsOfClient(q.tenantId, q.subject.clientId);
    const now = this.clock.now().getTime();
    return all.filter((b) => appliesNow(b, q.tenantId, q.resourceServerId, now));
  }

  /** The role ids' grants on one server, as the snapshot holds them. */
  roleScopes(roleId: string, resourceServerId: string): readonly string[] {
    return this.snapshot.grants.get(roleId)?.get(resourceServerId) ?? [];
  }

  private bindingsOfUser(tenantId: string, userId: string): IndexedBinding[] {
    const s = this.snapshot;
    const out: IndexedBinding[] = [...(s.bindingsOf.get(subjectKey("user", userId)) ?? [])];
    for (const groupId of s.groupsOf.get(memberKey(tenantId, userId)) ?? []) {
      const groupBindings = s.bindingsOf.get(subjectKey("group", groupId));
      if (groupBindings) out.push(...groupBindings);
    }
    return out;
  }

  private bindingsOfClient(tenantId: string, clientId: string): readonly IndexedBinding[] {
    const internalId = this.snapshot.serviceAccountOf.get(memberKey(tenantId, clientId));
    return internalId ? (this.snapshot.bindingsOf.get(subjectKey("service_account", internalId)) ?? []) : [];
  }

  private grantedBy(bindings: readonly IndexedBinding[], tenantId: string, resourceServerId: string): Set<string> {
    const out = new Set<string>();
    if (bindings.length === 0) return out;
    const now = this.clock.now().getTime();
    for (const b of bindings) {
      // Users are installation-wide: their direct bindings in other workspaces must not count here.
      if (!appliesNow(b, tenantId, resourceServerId, now)) continue;
      for (const scope of this.snapshot.grants.get(b.roleId)?.get(resourceServerId) ?? []) out.add(scope);
    }
    return out;
  }
}

/** A binding counts when it is of this workspace, not expired (expires_at <= now is expired), and covers the server. */
function appliesNow(b: IndexedBinding, tenantId: string, resourceServerId: string, nowMs: number): boolean {
  if (b.tenantId !== tenantId) return false;
  if (b.expiresAtMs !== null && b.expiresAtMs <= nowMs) return false;
  if (b.scopeType === null || b.scopeType === "*") return true;
  return b.scopeType === "resource_server" && b.scopeId === resourceServerId;
}
