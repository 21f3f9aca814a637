// RBAC: roles and their grants, groups, role bindings, effective access, and the one scope
// resolver that introspection and access simulations use.
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { BindingService } from "./binding-service";
import { EffectiveAccessService } from "./effective-access";
import { GroupService } from "./group-service";
import { RoleService } from "./role-service";
import { ScopeResolver } from "./scope-resolver";

export { ScopeResolver, type AccessSubject, type ScopeQuery, type SubjectQuery } from "./scope-resolver";
export type { IndexedBinding } from "./access-snapshot";
export { RoleService } from "./role-service";
export { GroupService } from "./group-service";
export { BindingService, type BindingSubject } from "./binding-service";
export { EffectiveAccessService } from "./effective-access";
export { roleInputSchema, createGroupSchema, addGroupMemberSchema, createBindingSchema, SCOPE_TYPES, type RoleInput, type CreateGroupInput, type CreateBindingInput } from "./schemas";
export type { RoleView, GroupView, GroupMemberView, RoleBindingView, EffectiveAccessItem } from "./views";

export interface RbacServices {
  roles: RoleService;
  groups: GroupService;
  bindings: BindingService;
  effectiveAccess: EffectiveAccessService;
  /** The hot-path scope resolver (in memory; reloaded on every "access" cache version change). */
  resolver: ScopeResolver;
}

/** Builds the RBAC services and loads the resolver's snapshot before the app serves anything. */
export async function createRbac(deps: { db: Db; versions: CacheVersions; clock: Clock; ids: IdGenerator }): Promise<RbacServices> {
  const { db, versions, clock, ids } = deps;
  const resolver = new ScopeResolver(db, clock, versions);
  await resolver.load();
  return {
    roles: new RoleService(db, versions, clock, ids),
    groups: new GroupService(db, versions, clock, ids),
    bindings: new BindingService(db, versions, clock, ids),
    effectiveAccess: new EffectiveAccessService(db, clock),
    resolver,
  };
}
