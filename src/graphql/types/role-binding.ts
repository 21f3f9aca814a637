// RoleBinding (a role given to a user, a group or a client acting as a service account) and the
// effective-access items of a user. Writes and effective access go through BindingService and
// EffectiveAccessService, exactly like the REST routes.
import { z } from "zod";
import { ROLE_BINDING_LIST, createBindingSchema, type BindingSubject, type EffectiveAccessItem } from "../../modules/rbac";
import { badRequest } from "../../shared/errors";
import { builder } from "../builder";
import type { GraphQLContext } from "../context";
import { idSchema, parseArg, toWire } from "../validation";
import { enumValue } from "./enums";
import { CURSOR_DESCRIPTION } from "./pagination";
import { nullIfNotFound } from "./people-support";

const SUBJECT_TYPES = ["user", "group", "service_account"] as const;
export const BindingSubjectTypeEnum = builder.enumType("BindingSubjectType", { values: SUBJECT_TYPES });

/**
 * Binding conditions are a free-form JSON object, stored as given (spec "Role binding"). The graph
 * carries them as JSON text (the builder declares no JSON scalar), parsed here into the object the
 * REST API stores.
 */
function parseConditions(text: string | null | undefined): Record<string, unknown> | null | undefined {
  if (text === null || text === undefined) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("input.conditions: must be JSON text of an object");
  }
  const r = z.record(z.string(), z.unknown()).safeParse(value);
  if (!r.success) throw badRequest("input.conditions: must be JSON text of an object");
  return r.data;
}

export const RoleBindingRef = builder.prismaObject("RoleBinding", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("tenantId"),
    roleId: t.exposeID("roleId"),
    role: t.relation("role"),
    subjectType: t.field({ type: BindingSubjectTypeEnum, select: { subjectType: true }, resolve: (b) => enumValue(SUBJECT_TYPES, b.subjectType, "subject type") }),
    subjectId: t.exposeID("subjectId", { description: "A user id, a group id, or a client's internal id (service account)." }),
    scopeType: t.exposeString("scopeType", { nullable: true, description: 'null or "*" = tenant-wide; "resource_server" = only scopeId.' }),
    scopeId: t.exposeID("scopeId", { nullable: true }),
    conditions: t.string({
      nullable: true,
      description: "The conditions object as JSON text (stored as given; enforced in a later phase).",
      select: { conditions: true },
      resolve: (b) => (b.conditions === null ? null : JSON.stringify(b.conditions)),
    }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    source: t.exposeString("source"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    createdBy: t.exposeID("createdBy", { nullable: true }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { createdAt: true }, resolve: (b) => ROLE_BINDING_LIST.cursorAfter(b) }),
  }),
});

export const EffectiveAccessItemRef = builder.objectRef<EffectiveAccessItem>("EffectiveAccessItem").implement({
  description: "A binding affecting a user now, directly or through a group (spec \"Effective access item\").",
  fields: (t) => ({
    bindingId: t.exposeID("binding_id"),
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name"),
    subject: t.field({ type: BindingSubjectTypeEnum, resolve: (i) => i.subject }),
    subjectId: t.exposeID("subject_id"),
    scopeType: t.exposeString("scope_type", { nullable: true }),
    scopeId: t.exposeID("scope_id", { nullable: true }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => (i.expires_at ? new Date(i.expires_at) : null) }),
  }),
});

builder.queryFields((t) => ({
  effectiveAccess: t.field({
    type: [EffectiveAccessItemRef],
    description: "Every binding affecting the user now; bindings whose expiresAt is at or before now are left out.",
    args: { userId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.rbac.effectiveAccess.forUser(ctx.actor, parseArg(idSchema, args.userId, "userId")),
  }),
  roleBinding: t.prismaField({
    type: "RoleBinding",
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const b = await nullIfNotFound(() => ctx.services.rbac.bindings.get(ctx.actor, parseArg(idSchema, args.id, "id")));
      return b && ctx.reads.roleBinding.findUnique({ ...selection, where: { id: b.id } });
    },
  }),
}));

const CreateRoleBindingInput = builder.inputType("CreateRoleBindingInput", {
  description: "The spec's role-binding body. tenantId (or workspaceId) must be the token's workspace.",
  fields: (t) => ({
    tenantId: t.id({ required: false }),
    workspaceId: t.id({ required: false }),
    roleId: t.id({ required: true }),
    scopeType: t.string({ required: false, description: 'null, "*" or "resource_server".' }),
    scopeId: t.id({ required: false, description: "The resource server id when scopeType is resource_server." }),
    conditions: t.string({ required: false, description: 'JSON text of an object, e.g. "{\\"mfa\\":true}".' }),
    expiresAt: t.string({ required: false, description: "ISO 8601 with a time zone; must be in the future." }),
  }),
});

/** The shared body of the three create mutations: same schema, same service, by subject. */
async function createBinding(ctx: GraphQLContext, subject: BindingSubject, input: Record<string, unknown>) {
  const { conditions, ...rest } = input;
  const wire = { ...toWire(rest), ...(conditions != null ? { conditions: parseConditions(conditions as string) } : {}) };
  return ctx.services.rbac.bindings.create(ctx.actor, subject, parseArg(createBindingSchema, wire, "input"));
}

builder.mutationFields((t) => ({
  createGroupRoleBinding: t.prismaField({
    type: "RoleBinding",
    description: "POST /uflow/v2/groups/:group_id/role-bindings.",
    args: { groupId: t.arg.id({ required: true }), input: t.arg({ type: CreateRoleBindingInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const b = await createBinding(ctx, { type: "group", id: parseArg(idSchema, args.groupId, "groupId") }, args.input);
      return ctx.reads.roleBinding.findUniqueOrThrow({ ...selection, where: { id: b.id } });
    },
  }),
  createUserRoleBinding: t.prismaField({
    type: "RoleBinding",
    description: "A binding for one member of the workspace.",
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: CreateRoleBindingInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const b = await createBinding(ctx, { type: "user", id: parseArg(idSchema, args.userId, "userId") }, args.input);
      return ctx.reads.roleBinding.findUniqueOrThrow({ ...selection, where: { id: b.id } });
    },
  }),
  createClientRoleBinding: t.prismaField({
    type: "RoleBinding",
    description: "A binding for a client acting as a service account, named by its OAuth client_id (or internal id).",
    args: { clientId: t.arg.string({ required: true }), input: t.arg({ type: CreateRoleBindingInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const b = await createBinding(ctx, { type: "service_account", clientId: args.clientId }, args.input);
      return ctx.reads.roleBinding.findUniqueOrThrow({ ...selection, where: { id: b.id } });
    },
  }),
  deleteRoleBinding: t.boolean({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.rbac.bindings.remove(ctx.actor, parseArg(idSchema, args.id, "id"));
      return true;
    },
  }),
}));
