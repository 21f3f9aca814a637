export { TenancyService, emailSchema, passwordSchema, type AdminCandidate, type BootstrapInput, type UserView, type LoginSource, type SignInCounts } from "./tenancy-service";
export { LoginThrottle, type AttemptKeys, type Reservation } from "./login-throttle";
export { toMembershipView, type MembershipView } from "./views";
export { toMemberView, toEndUserView, type MemberView, type EndUserView } from "./views";
export { MembershipService } from "./membership-service";
export { EndUserService } from "./end-user-service";
export {
  MEMBERSHIP_STATUSES,
  createMembershipSchema,
  updateMembershipSchema,
  listMembershipsQuery,
  MEMBERSHIP_LIST,
  type MembershipStatus,
  type CreateMembershipInput,
  type UpdateMembershipInput,
  type ListMembershipsFilter,
} from "./membership-schemas";
export {
  END_USER_STATUSES,
  patchEndUserSchema,
  suspendEndUserSchema,
  listEndUsersQuery,
  END_USER_LIST,
  type EndUserStatus,
  type PatchEndUserInput,
  type ListEndUsersFilter,
} from "./end-user-schemas";
export { AdminAuthenticator, AdminAuthError, bearerToken } from "./admin-authentication";
export { ensureJitMember, type JitMemberInput } from "./jit-members";
