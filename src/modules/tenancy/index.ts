export { TenancyService, emailSchema, passwordSchema, type BootstrapInput, type UserView } from "./tenancy-service";
export { toMembershipView, type MembershipView } from "./views";
