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
// Hot path: the facts come from per-entry caches (access-cache.ts). When every entry a question
// needs is cached, the answer is computed synchronously with no database query; otherwise the
// missing entries are loaded (each level in parallel: member, then bindings, then roles) and the
// same computation runs again. One computation, two drivers: `resolve` below.
import type { Clock } from "../../shared/clock";
import { NOT_CACHED, type EntryCache, type NotCached } from "../../shared/entry-cache";
import { bindingsKey, memberKey, type AccessCaches, type IndexedBinding } from "./access-cache";
import { overlayCaches, type Overrides, type WhatIf } from "./what-if";

export type AccessSubject =
  | { type: "user"; id: string }
  /** clientId is the OAuth client_id; internalId names its service-account bindings; allowedScopes come from the client record. */
  | { type: "client"; clientId: string; internalId: string; allowedScopes: readonly string[] | ReadonlySet<string> };

export interface SubjectQuery {
  tenantId: string;
  subject: AccessSubject;
}

export interface ScopeQuery extends SubjectQuery {
  resourceServerId: string;
}

const NOTHING: ReadonlySet<string> = new Set();

/** What the resolver reads of an access token and of its client. */
type TokenFacts = { sub: string; tenant_id: string; sub_type?: string };
type ClientFacts = { id: string; clientId: string; allowedScopeSet: ReadonlySet<string> };
// A computation that needs an entry not cached yet answers NOT_CACHED (the drivers below load it).
type Missing = NotCached;

/** Reads an entry for a computation: its value, or undefined after noting the miss. */
type Look = <V>(cache: EntryCache<V>, key: string) => V | null | undefined;

interface Miss {
  cache: EntryCache<unknown>;
  key: string;
}

/** A user's or client's facts for one workspace, as far as they were cached. */
interface SubjectFacts {
  active: boolean;
  bindings: IndexedBinding[];
}

export class ScopeResolver {
  constructor(
    private readonly caches: AccessCaches,
    private readonly clock: Clock,
  ) {}

  /**
   * Introspection's seam (the tokens module's SubjectScopeSource, matched structurally so rbac does
   * not depend on tokens): what the token's subject may hold now on the calling server, or null
   * when a user may hold nothing at all (the token is then inactive). A user token is also bounded
   * by its client's current allowed scopes (what consent could grant through that client today),
   * so narrowing a client narrows its users' tokens too.
   */
  allowedScopes(token: TokenFacts, client: ClientFacts, server: { id: string }): Promise<ReadonlySet<string> | null> {
    const compute = this.allowedScopesComputation(token, client, server);
    return Promise.resolve(this.resolve(compute));
  }

  /** The same answer from memory only; NOT_CACHED when a fact it needs is not cached. */
  peekAllowedScopes(token: TokenFacts, client: ClientFacts, server: { id: string }): ReadonlySet<string> | null | NotCached {
    return this.allowedScopesComputation(token, client, server)(peekInto([]));
  }

  private allowedScopesComputation(token: TokenFacts, client: ClientFacts, server: { id: string }): (look: Look) => ReadonlySet<string> | null | Missing {
    const kind = token.sub_type ?? "client";
    const subject: AccessSubject =
      kind === "user"
        ? { type: "user", id: token.sub }
        : { type: "client", clientId: client.clientId, internalId: client.id, allowedScopes: client.allowedScopeSet };
    const q = { tenantId: token.tenant_id, resourceServerId: server.id, subject };
    return (look) => {
      if (kind !== "user" && kind !== "client") return null; // an unknown subject type holds nothing
      const facts = this.facts(q, look);
      if (facts === NOT_CACHED) return NOT_CACHED;
      if (!facts.active) return null;
      const held = this.granted(facts.bindings, q, look);
      if (held === NOT_CACHED) return NOT_CACHED;
      if (subject.type === "client") return withAllowed(held, subject.allowedScopes);
      const out = new Set<string>();
      for (const s of held) if (client.allowedScopeSet.has(s)) out.add(s);
      return out;
    };
  }

  /**
   * Whether the subject may hold anything in the workspace now. For a user: an active membership
   * and an end-user state that is not suspended. A client's own status (approved/revoked) belongs
   * to the clients module, so a client is active here.
   */
  async isActive(q: SubjectQuery): Promise<boolean> {
    if (q.subject.type === "client") return true;
    const userId = q.subject.id;
    return this.resolve((look) => {
      const m = look(this.caches.members, memberKey(q.tenantId, userId));
      return m === undefined ? NOT_CACHED : !!m?.active;
    });
  }

  /** Every scope the subject may hold now on the server (empty for an inactive user). */
  async scopesFor(q: ScopeQuery): Promise<ReadonlySet<string>> {
    return this.resolve((look) => {
      const facts = this.facts(q, look);
      if (facts === NOT_CACHED) return NOT_CACHED;
      if (!facts.active) return NOTHING;
      const held = this.granted(facts.bindings, q, look);
      if (held === NOT_CACHED) return NOT_CACHED;
      return q.subject.type === "client" ? withAllowed(held, q.subject.allowedScopes) : held;
    });
  }

  /**
   * What a signed-in user holds on the server now, or null when they may hold nothing in the
   * workspace (not an active member, or suspended): the refresh and sign-in grants' question.
   */
  async userScopes(tenantId: string, resourceServerId: string, userId: string): Promise<ReadonlySet<string> | null> {
    const q: ScopeQuery = { tenantId, resourceServerId, subject: { type: "user", id: userId } };
    return this.resolve((look) => {
      const facts = this.facts(q, look);
      if (facts === NOT_CACHED) return NOT_CACHED;
      return facts.active ? this.granted(facts.bindings, q, look) : null;
    });
  }

  /** Which of the token's scopes does the subject still hold? Keeps the token's order. */
  async narrow(q: ScopeQuery, tokenScopes: readonly string[]): Promise<string[]> {
    const held = await this.scopesFor(q);
    return tokenScopes.filter((s) => held.has(s));
  }

  /**
   * The bindings that count now for the subject on the server (for simulations' decision traces).
   * Status is not applied here: ask isActive() for that.
   */
  async effectiveBindings(q: ScopeQuery): Promise<IndexedBinding[]> {
    const now = this.clock.now().getTime();
    return this.resolve((look) => {
      const all = this.bindingsOf(q, look);
      return all === NOT_CACHED ? NOT_CACHED : all.filter((b) => appliesNow(b, q.tenantId, q.resourceServerId, now));
    });
  }

  /**
   * The same resolver as if `changes` were made in the workspace (what-if.ts): change previews ask
   * it the questions they ask this one. The current entries it starts from are read through the
   * caches (loaded on a miss); nothing is written or cached.
   */
  async whatIf(tenantId: string, changes: readonly WhatIf[]): Promise<ScopeResolver> {
    const o: Overrides = { members: new Map(), bindings: new Map(), roles: new Map() };
    for (const c of changes) {
      if (c.kind === "add_binding" || c.kind === "remove_binding") {
        const subjectType = c.kind === "add_binding" ? c.binding.subjectType : c.subjectType;
        const subjectId = c.kind === "add_binding" ? c.binding.subjectId : c.subjectId;
        const key = bindingsKey(tenantId, subjectType, subjectId);
        const current = o.bindings.has(key) ? o.bindings.get(key) : await this.caches.bindings.get(key);
        o.bindings.set(key, c.kind === "add_binding" ? [...(current ?? []), c.binding] : (current ?? []).filter((b) => b.id !== c.bindingId));
      } else if (c.kind === "role_grants") {
        const current = o.roles.has(c.roleId) ? o.roles.get(c.roleId) : await this.caches.roles.get(c.roleId);
        const next = new Map(current ?? []);
        if (c.scopes.length > 0) next.set(c.resourceServerId, [...c.scopes]);
        else next.delete(c.resourceServerId);
        o.roles.set(c.roleId, next);
      } else {
        const key = memberKey(tenantId, c.userId);
        const current = o.members.has(key) ? o.members.get(key) : await this.caches.members.get(key);
        o.members.set(key, { active: false, groupIds: current?.groupIds ?? [] });
      }
    }
    return new ScopeResolver(overlayCaches(this.caches, o), this.clock);
  }

  /** The role's grants on one server. */
  async roleScopes(roleId: string, resourceServerId: string): Promise<readonly string[]> {
    const grants = await this.caches.roles.get(roleId);
    return grants?.get(resourceServerId) ?? [];
  }

  /**
   * Runs `compute` against the caches: synchronously when nothing is missing; otherwise loads what
   * it reported missing and runs it again (a question needs at most three levels of entries).
   */
  private resolve<T>(compute: (look: Look) => T | Missing): T | Promise<T> {
    const misses: Miss[] = [];
    const result = compute(peekInto(misses));
    return result !== NOT_CACHED ? result : this.resolveAsync(compute, misses);
  }

  private async resolveAsync<T>(compute: (look: Look) => T | Missing, firstMisses: Miss[]): Promise<T> {
    // Loaded values answer this computation even if an invalidation keeps them out of the cache.
    const loaded = new Map<EntryCache<unknown>, Map<string, unknown>>();
    let misses = firstMisses;
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        misses.map(async ({ cache, key }) => {
          const value = await cache.load(key);
          if (!loaded.has(cache)) loaded.set(cache, new Map());
          loaded.get(cache)!.set(key, value);
        }),
      );
      misses = [];
      const result = compute(overlayInto(loaded, misses));
      if (result !== NOT_CACHED) return result;
    }
    throw new Error("access facts could not be loaded"); // unreachable: each round resolves one level
  }

  /** Whether the subject is active and its bindings (direct and through groups) in the workspace. */
  private facts(q: SubjectQuery, look: Look): SubjectFacts | Missing {
    if (q.subject.type === "user") {
      const m = look(this.caches.members, memberKey(q.tenantId, q.subject.id));
      if (m === undefined) return NOT_CACHED;
      if (!m?.active) return { active: false, bindings: [] };
    }
    const bindings = this.bindingsOf(q, look);
    return bindings === NOT_CACHED ? NOT_CACHED : { active: true, bindings };
  }

  private bindingsOf(q: SubjectQuery, look: Look): IndexedBinding[] | Missing {
    const { tenantId, subject } = q;
    if (subject.type === "client") {
      const own = look(this.caches.bindings, bindingsKey(tenantId, "service_account", subject.internalId));
      return own === undefined ? NOT_CACHED : [...(own ?? [])];
    }
    const m = look(this.caches.members, memberKey(tenantId, subject.id));
    const direct = look(this.caches.bindings, bindingsKey(tenantId, "user", subject.id));
    if (m === undefined) return NOT_CACHED;
    let missing = direct === undefined;
    const out: IndexedBinding[] = [...(direct ?? [])];
    for (const groupId of m?.groupIds ?? []) {
      const g = look(this.caches.bindings, bindingsKey(tenantId, "group", groupId));
      if (g === undefined) missing = true;
      else if (g) out.push(...g);
    }
    return missing ? NOT_CACHED : out;
  }

  private granted(bindings: readonly IndexedBinding[], q: ScopeQuery, look: Look): Set<string> | Missing {
    const out = new Set<string>();
    if (bindings.length === 0) return out;
    const now = this.clock.now().getTime();
    let missing = false;
    for (const b of bindings) {
      if (!appliesNow(b, q.tenantId, q.resourceServerId, now)) continue;
      const grants = look(this.caches.roles, b.roleId);
      if (grants === undefined) missing = true;
      else for (const scope of grants?.get(q.resourceServerId) ?? []) out.add(scope);
    }
    return missing ? NOT_CACHED : out;
  }
}

function peekInto(misses: Miss[]): Look {
  return (cache, key) => {
    const v = cache.peek(key);
    if (v === undefined) misses.push({ cache: cache as EntryCache<unknown>, key });
    return v;
  };
}

function overlayInto(loaded: Map<EntryCache<unknown>, Map<string, unknown>>, misses: Miss[]): Look {
  return <V>(cache: EntryCache<V>, key: string) => {
    const own = loaded.get(cache as EntryCache<unknown>);
    if (own?.has(key)) return own.get(key) as V | null;
    const v = cache.peek(key);
    if (v === undefined) misses.push({ cache: cache as EntryCache<unknown>, key });
    return v;
  };
}

/** A client's own allowed scopes plus what its bindings grant (without copying when nothing is granted). */
function withAllowed(granted: Set<string>, allowed: readonly string[] | ReadonlySet<string>): ReadonlySet<string> {
  if (granted.size === 0) return allowed instanceof Set ? allowed : new Set(allowed);
  for (const s of allowed) granted.add(s);
  return granted;
}

/** A binding counts when it is of this workspace, not expired (expires_at <= now is expired), and covers the server. */
function appliesNow(b: IndexedBinding, tenantId: string, resourceServerId: string, nowMs: number): boolean {
  if (b.tenantId !== tenantId) return false;
  if (b.expiresAtMs !== null && b.expiresAtMs <= nowMs) return false;
  if (b.scopeType === null || b.scopeType === "*") return true;
  return b.scopeType === "resource_server" && b.scopeId === resourceServerId;
}
