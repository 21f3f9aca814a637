// "What if": the scope resolver over the same caches with some entries replaced, for change
// previews (modules/access-changes). The computation is the resolver's own (scope-resolver.ts), so a
// preview and the enforcement that follows the real change cannot disagree. Nothing is written, and
// the replaced entries never enter the shared caches.
import type { EntryCache } from "../../shared/entry-cache";
import type { AccessCaches, IndexedBinding, MemberFacts, RoleGrants } from "./access-cache";

export type WhatIf =
  | { kind: "add_binding"; binding: IndexedBinding }
  | { kind: "remove_binding"; bindingId: string; subjectType: string; subjectId: string }
  /** The role's grants on one server become `scopes`. */
  | { kind: "role_grants"; roleId: string; resourceServerId: string; scopes: readonly string[] }
  /** The user may hold nothing (suspended end user, or membership no longer active). */
  | { kind: "deactivate_user"; userId: string };

export interface Overrides {
  members: Map<string, MemberFacts | null>;
  bindings: Map<string, readonly IndexedBinding[] | null>;
  roles: Map<string, RoleGrants | null>;
}

function overlay<V>(cache: EntryCache<V>, replaced: Map<string, V | null>): EntryCache<V> {
  const view = {
    peek: (key: string) => (replaced.has(key) ? replaced.get(key) : cache.peek(key)),
    get: (key: string) => (replaced.has(key) ? (replaced.get(key) ?? null) : cache.get(key)),
    load: (key: string) => (replaced.has(key) ? Promise.resolve(replaced.get(key) ?? null) : cache.load(key)),
  };
  return view as unknown as EntryCache<V>;
}

export function overlayCaches(caches: AccessCaches, o: Overrides): AccessCaches {
  return { members: overlay(caches.members, o.members), bindings: overlay(caches.bindings, o.bindings), roles: overlay(caches.roles, o.roles) };
}
