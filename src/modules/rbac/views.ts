// Wire views (snake_case, as the spec names the fields) of roles, groups and role bindings.
import type { Group, RoleBinding, RoleGrant } from "../../generated/sqlite/client";

export interface RoleView {
  id: string;
  name: string;
  description: string | null;
  grants: { resource_server_id: string; scope_ids: string[] }[];
}

/** Grants are stored one row per (server, scope); the wire groups them per server, in a stable order. */
export function toRoleView(role: { id: string; name: string; description: string | null; grants: Pick<RoleGrant, "resourceServerId" | "scopeKey">[] }): RoleView {
  const byServer = new Map<string, string[]>();
  for (const g of role.grants) byServer.set(g.resourceServerId, [...(byServer.get(g.resourceServerId) ?? []), g.scopeKey]);
  const grants = [...byServer.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([resource_server_id, scope_ids]) => ({ resource_server_id, scope_ids: scope_ids.sort() }));
  return { id: role.id, name: role.name, description: role.description, grants };
}

export interface GroupView {
  id: string;
  tenant_id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  member_count: number;
  created_at: string;
}

export function toGroupView(g: Group & { _count: { members: number } }): GroupView {
  return {
    id: g.id,
    tenant_id: g.tenantId,
    workspace_id: g.tenantId,
    name: g.name,
    description: g.description,
    member_count: g._count.members,
    created_at: g.createdAt.toISOString(),
  };
}

export interface GroupMemberView {
  group_id: string;
  user_id: string;
  user_email: string;
  user_username: string;
  created_at: string;
}

export function toGroupMemberView(m: { groupId: string; userId: string; createdAt: Date; user: { email: string; username: string } }): GroupMemberView {
  return { group_id: m.groupId, user_id: m.userId, user_email: m.user.email, user_username: m.user.username, created_at: m.createdAt.toISOString() };
}

/** The RoleBinding row. For a service account, subject_id is the client's internal UUID. */
export interface RoleBindingView {
  id: string;
  tenant_id: string;
  workspace_id: string;
  role_id: string;
  subject_type: string;
  subject_id: string;
  scope_type: string | null;
  scope_id: string | null;
  conditions: unknown;
  expires_at: string | null;
  source: string;
  created_at: string;
  created_by: string | null;
}

export function toRoleBindingView(b: RoleBinding): RoleBindingView {
  return {
    id: b.id,
    tenant_id: b.tenantId,
    workspace_id: b.tenantId,
    role_id: b.roleId,
    subject_type: b.subjectType,
    subject_id: b.subjectId,
    scope_type: b.scopeType,
    scope_id: b.scopeId,
    conditions: b.conditions ?? null,
    expires_at: b.expiresAt?.toISOString() ?? null,
    source: b.source,
    created_at: b.createdAt.toISOString(),
    created_by: b.createdBy,
  };
}

/** Spec "Effective access item": exactly these fields. */
export interface EffectiveAccessItem {
  binding_id: string;
  role_id: string;
  role_name: string;
  subject: "user" | "group" | "service_account";
  subject_id: string;
  scope_type: string | null;
  scope_id: string | null;
  expires_at: string | null;
}

export function toEffectiveAccessItem(b: RoleBinding & { role: { name: string } }): EffectiveAccessItem {
  return {
    binding_id: b.id,
    role_id: b.roleId,
    role_name: b.role.name,
    subject: b.subjectType as EffectiveAccessItem["subject"],
    subject_id: b.subjectId,
    scope_type: b.scopeType,
    scope_id: b.scopeId,
    expires_at: b.expiresAt?.toISOString() ?? null,
  };
}
