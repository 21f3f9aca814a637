// Wire views (snake_case, as the spec names the fields) of tenancy rows.
import type { Membership } from "../../generated/sqlite/client";

export interface MembershipView {
  id: string;
  tenant_id: string;
  workspace_id: string;
  user_id: string;
  membership_type: string;
  status: string;
  source: string;
  external_id: string | null;
  suspended_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toMembershipView(m: Membership): MembershipView {
  return {
    id: m.id,
    tenant_id: m.tenantId,
    workspace_id: m.tenantId,
    user_id: m.userId,
    membership_type: m.membershipType,
    status: m.status,
    source: m.source,
    external_id: m.externalId,
    suspended_at: m.suspendedAt?.toISOString() ?? null,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}
