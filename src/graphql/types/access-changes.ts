// Access change previews on the graph: `accessChangePreview`, a Query (nothing is written), through
// the same service and the same zod schema as POST /svc/v1/applications/:id/access-change-previews
// (modules/access-changes). Owners and admins only, as REST (docs/decisions/0032, 0034).
import { CHANGE_KINDS, changeSchema, type ChangePreview, type UserDelta, type Warning } from "../../modules/access-changes";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";

const ChangeKindEnum = builder.enumType("AccessChangeKind", { values: CHANGE_KINDS });

const ChangeInput = builder.inputType("AccessChangeInput", {
  description:
    "A proposed change; which fields apply depends on kind (as the REST body's `change`, camelCase): binding_add (subjectType, subjectId, roleId, scopeType, scopeId, expiresAt), binding_remove (bindingId), role_grants (roleId, add, remove), user_suspend (userId), tool_public (toolName), tool_mapping (toolName, scopeIds), scope_delete (scopeId: the scope token). A field that does not apply is BAD_USER_INPUT.",
  fields: (t) => ({
    kind: t.field({ type: ChangeKindEnum, required: true }),
    subjectType: t.string({ required: false, description: "user | group" }),
    subjectId: t.id({ required: false }),
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
    truncated: t.exposeBoolean("truncated"),
    warnings: t.field({ type: [WarningRef], resolve: (p) => p.warnings }),
  }),
});

builder.queryField("accessChangePreview", (t) =>
  t.field({
    type: PreviewRef,
    description: "What a proposed access change would do on one application; nothing is written (a query, not a mutation). Owners and admins.",
    args: { applicationId: t.arg.id({ required: true }), change: t.arg({ type: ChangeInput, required: true }) },
    resolve: (_root, args, ctx) => {
      const applicationId = parseArg(idSchema, args.applicationId, "applicationId");
      const change = parseArg(changeSchema, toWire({ ...args.change }), "change");
      return ctx.services.accessChanges.preview(ctx.actor, applicationId, change);
    },
  }),
);
