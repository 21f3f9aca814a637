// Access change previews on the graph: `accessChangePreview`, a Query (nothing is written), through
// the same service and the same zod schema as POST /svc/v1/applications/:id/access-change-previews
// (modules/access-changes). Owners and admins only, as REST (docs/decisions/0032, 0034).
import { CHANGE_KINDS, changeSchema, type ChangePreview, type FirstSignIn, type FirstSignInGrant, type RevokedClient, type ServiceAccountDelta, type UserDelta, type Warning } from "../../modules/access-changes";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { FirstTimeGrantEnum } from "./lifecycle";

const ChangeKindEnum = builder.enumType("AccessChangeKind", { values: CHANGE_KINDS });

const ChangeInput = builder.inputType("AccessChangeInput", {
  description:
    "A proposed change; which fields apply depends on kind (as the REST body's `change`, camelCase): binding_add (subjectType, subjectId, roleId, scopeType, scopeId, expiresAt), binding_remove (bindingId), role_grants (roleId, add, remove), user_suspend (userId), tool_public (toolName), tool_mapping (toolName, scopeIds), scope_delete (scopeId: the scope token), default_role (enabled, defaultRoleId, firstTimeGrant: as the access policy's PUT), connection_revoke (clientId). A field that does not apply is BAD_USER_INPUT.",
  fields: (t) => ({
    kind: t.field({ type: ChangeKindEnum, required: true }),
    subjectType: t.string({ required: false, description: "user | group | service_account" }),
    subjectId: t.id({ required: false, description: "binding_add: a user's or group's id, or a service account's OAuth client_id." }),
    roleId: t.id({ required: false }),
    scopeType: t.string({ required: false, description: "binding_add: * (tenant-wide) or resource_server; absent or null: tenant-wide." }),
    scopeId: t.string({ required: false, description: "binding_add: the resource server's id; scope_delete: the scope token." }),
    expiresAt: t.string({ required: false, description: "binding_add: an ISO 8601 timestamp with offset." }),
    bindingId: t.id({ required: false }),
    add: t.stringList({ required: false }),
    remove: t.stringList({ required: false }),
    userId: t.id({ required: false }),
    toolName: t.string({ required: false }),
    scopeIds: t.stringList({ required: false, description: "tool_mapping: the tool's scopes after the change ([] unmaps it)." }),
    enabled: t.boolean({ required: false, description: "default_role: whether the access policy is enabled." }),
    defaultRoleId: t.id({ required: false, description: "default_role: omitted keeps the current role; null clears it." }),
    firstTimeGrant: t.field({ type: FirstTimeGrantEnum, required: false, description: "default_role: omitted keeps the current setting." }),
    clientId: t.string({ required: false, description: "connection_revoke: the OAuth client_id." }),
  }),
});

const ScopesAndToolsRef = builder.objectRef<UserDelta["gains"]>("AccessChangeScopesAndTools").implement({
  fields: (t) => ({ scopes: t.exposeStringList("scopes"), tools: t.exposeStringList("tools") }),
});

const UserDeltaRef = builder.objectRef<UserDelta>("AccessChangeUserDelta").implement({
  fields: (t) => ({
    userId: t.exposeID("user_id"),
    gains: t.field({ type: ScopesAndToolsRef, resolve: (u) => u.gains }),
    losses: t.field({ type: ScopesAndToolsRef, resolve: (u) => u.losses }),
  }),
});

const WarningRef = builder.objectRef<Warning>("AccessChangeWarning").implement({
  fields: (t) => ({ code: t.exposeString("code"), message: t.exposeString("message") }),
});

const ServiceAccountDeltaRef = builder.objectRef<ServiceAccountDelta>("AccessChangeServiceAccountDelta").implement({
  fields: (t) => ({
    clientId: t.exposeString("client_id"),
    gains: t.field({ type: ScopesAndToolsRef, resolve: (u) => u.gains }),
    losses: t.field({ type: ScopesAndToolsRef, resolve: (u) => u.losses }),
  }),
});

const FirstSignInGrantRef = builder.objectRef<FirstSignInGrant>("AccessChangeFirstSignInGrant").implement({
  fields: (t) => ({ roleId: t.exposeID("role_id", { nullable: true }), scopes: t.exposeStringList("scopes"), tools: t.exposeStringList("tools") }),
});

const FirstSignInRef = builder.objectRef<FirstSignIn>("AccessChangeFirstSignIn").implement({
  description: "default_role: what a first sign-in to the application grants before and after the change (existing bindings are kept).",
  fields: (t) => ({
    before: t.field({ type: FirstSignInGrantRef, resolve: (f) => f.before }),
    after: t.field({ type: FirstSignInGrantRef, resolve: (f) => f.after }),
    membersNotSignedIn: t.exposeInt("members_not_signed_in"),
    usersHoldingFirstTimeGrant: t.exposeInt("users_holding_first_time_grant"),
  }),
});

const RevokedClientRef = builder.objectRef<RevokedClient>("AccessChangeRevokedClient").implement({
  fields: (t) => ({
    clientId: t.exposeString("client_id"),
    clientName: t.exposeString("client_name"),
    registrationMode: t.exposeString("registration_mode"),
    revokes: t.exposeString("revokes", { description: "connection (dcr/cimd) or client (pre-registered)" }),
    worksNow: t.exposeBoolean("works_now"),
    usersKnown: t.exposeInt("users_known"),
  }),
});

const SummaryRef = builder.objectRef<ChangePreview["summary"]>("AccessChangeSummary").implement({
  fields: (t) => ({
    usersGaining: t.exposeInt("users_gaining"),
    usersLosing: t.exposeInt("users_losing"),
    scopesGained: t.exposeStringList("scopes_gained"),
    scopesLost: t.exposeStringList("scopes_lost"),
    toolsGained: t.exposeStringList("tools_gained"),
    toolsLost: t.exposeStringList("tools_lost"),
  }),
});

const PreviewRef = builder.objectRef<ChangePreview>("AccessChangePreview").implement({
  description: "Who would gain and lose which scopes and tools if the change were made; nothing is written.",
  fields: (t) => ({
    applicationId: t.exposeID("application_id"),
    change: t.string({ description: "The change as parsed, as JSON text (REST's wire names).", resolve: (p) => JSON.stringify(p.change) }),
    written: t.boolean({ description: "Always false.", resolve: (p) => p.written }),
    usersEvaluated: t.exposeInt("users_evaluated"),
    summary: t.field({ type: SummaryRef, resolve: (p) => p.summary }),
    users: t.field({ type: [UserDeltaRef], description: "Users whose access changes (at most 500: see truncated).", resolve: (p) => p.users }),
    serviceAccounts: t.field({ type: [ServiceAccountDeltaRef], description: "Service accounts (clients' own tokens) whose access changes.", resolve: (p) => p.service_accounts }),
    truncated: t.exposeBoolean("truncated"),
    warnings: t.field({ type: [WarningRef], resolve: (p) => p.warnings }),
    firstSignIn: t.field({ type: FirstSignInRef, nullable: true, resolve: (p) => p.first_sign_in }),
    client: t.field({ type: RevokedClientRef, nullable: true, resolve: (p) => p.client }),
  }),
});

builder.queryField("accessChangePreview", (t) =>
  t.field({
    type: PreviewRef,
    description: "What a proposed access change would do on one application; nothing is written (a query, not a mutation). Owners and admins.",
    args: { applicationId: t.arg.id({ required: true }), change: t.arg({ type: ChangeInput, required: true }) },
    resolve: (_root, args, ctx) => {
      const applicationId = parseArg(idSchema, args.applicationId, "applicationId");
      // toWire drops nulls; default_role's defaultRoleId: null (clear the role) is kept.
      const { defaultRoleId, ...rest } = args.change;
      const wire = { ...toWire({ ...rest }), ...(defaultRoleId === undefined ? {} : { default_role_id: defaultRoleId }) };
      const change = parseArg(changeSchema, wire, "change");
      return ctx.services.accessChanges.preview(ctx.actor, applicationId, change);
    },
  }),
);
