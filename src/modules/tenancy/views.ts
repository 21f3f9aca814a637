// Wire views (snake_case, as the spec names the fields) of tenancy rows.
import type { EndUserState, Membership } from "../../generated/sqlite/client";

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

/** A membership with its user's email and username joined (membership list, get, create, update). */
export interface MemberView extends MembershipView {
  user_email: string;
  user_username: string;
}

export function toMemberView(m: Membership & { user: { email: string; username: string } }): MemberView {
  return { ...toMembershipView(m), user_email: m.user.email, user_username: m.user.username };
}

/**
 * A member's end-user state, with user_email and user_username joined (spec "Tenant end-user state").
 * A member without a stored row has the defaults (status active, nothing else); created_at and
 * updated_at are null until the first PATCH, suspend or reactivate writes the row.
 */
export interface EndUserView {
  user_id: string;
  tenant_id: string;
  workspace_id: string;
  status: string;
  plan_tier: string | null;
  rate_limit_override: string | null;
  suspended_reason: string | null;
  suspended_at: string | null;
  user_email: string;
  user_username: string;
  created_at: string | null;
  updated_at: string | null;
}

export function toEndUserView(tenantId: string, user: { id: string; email: string; username: string }, state: EndUserState | null | undefined): EndUserView {
  return {
    user_id: user.id,
    tenant_id: tenantId,
    workspace_id: tenantId,
    status: state?.status ?? "active",
    plan_tier: state?.planTier ?? null,
    rate_limit_override: state?.rateLimitOverride ?? null,
    suspended_reason: state?.suspendedReason ?? null,
    suspended_at: state?.suspendedAt?.toISOString() ?? null,
    user_email: user.email,
    user_username: user.username,
    created_at: state?.createdAt.toISOString() ?? null,
    updated_at: state?.updatedAt.toISOString() ?? null,
  };
}
