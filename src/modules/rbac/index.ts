// RBAC: roles and their grants, groups, role bindings, effective access, and the one scope
// resolver that introspection and access simulations use.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import { createAccessCaches } from "./access-cache";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { BindingService } from "./binding-service";
import { EffectiveAccessService } from "./effective-access";
import { GroupService } from "./group-service";
import { RoleService } from "./role-service";
import { ScopeResolver } from "./scope-resolver";
import { GrantingRoles } from "./granting-roles";

export { ScopeResolver, type AccessSubject, type ScopeQuery, type SubjectQuery } from "./scope-resolver";
export type { IndexedBinding } from "./access-cache";
export type { WhatIf } from "./what-if";
export { RoleService } from "./role-service";
export { GroupService } from "./group-service";
export { BindingService, type BindingSubject } from "./binding-service";
export { EffectiveAccessService } from "./effective-access";
export { GrantingRoles, type GrantingRole, type ClientGrants } from "./granting-roles";
export { roleInputSchema, createGroupSchema, addGroupMemberSchema, createBindingSchema, SCOPE_TYPES, type RoleInput, type CreateGroupInput, type CreateBindingInput } from "./schemas";
export { ROLE_LIST, GROUP_LIST, GROUP_MEMBER_LIST, ROLE_BINDING_LIST, listRolesQuery, listGroupsQuery, listGroupMembersQuery, listRoleBindingsQuery } from "./schemas";
export type { RoleView, GroupView, GroupMemberView, RoleBindingView, EffectiveAccessItem } from "./views";

export interface RbacServices {
  roles: RoleService;
  groups: GroupService;
  bindings: BindingService;
  effectiveAccess: EffectiveAccessService;
  /** The hot-path scope resolver (per-entry caches of access facts, loaded on a miss). */
  resolver: ScopeResolver;
  /** The roles through which a user's authorization or a pre-registered client's scopes are granted. */
  grantingRoles: GrantingRoles;
}

/** Builds the RBAC services; the resolver's caches fill on demand. */
export function createRbac(deps: { db: Db; caches: CacheFactory; clock: Clock; ids: IdGenerator }): RbacServices {
  const { db, clock, ids } = deps;
  const resolver = new ScopeResolver(createAccessCaches(db, deps.caches), clock);
  return {
    roles: new RoleService(db, clock, ids),
    groups: new GroupService(db, clock, ids),
    bindings: new BindingService(db, clock, ids),
    effectiveAccess: new EffectiveAccessService(db, clock),
    resolver,
    grantingRoles: new GrantingRoles(db, resolver, clock),
  };
}
