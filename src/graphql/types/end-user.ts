// EndUser: a member's end-user state (spec "Tenant end-user state"), with the user's email and
// username joined. Not a prismaObject: a member without a stored row is an end user with the
// defaults, so the service's view is the shape. Same EndUserService as the REST end-users routes.
import { END_USER_STATUSES, listEndUsersQuery, patchEndUserSchema, suspendEndUserSchema, type EndUserView } from "../../modules/tenancy";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { enumValue } from "./enums";
import { nullIfNotFound, toWirePatch } from "./people-support";

export const EndUserStatusEnum = builder.enumType("EndUserStatus", { values: END_USER_STATUSES });

const date = (iso: string | null) => (iso === null ? null : new Date(iso));

export const EndUserRef = builder.objectRef<EndUserView>("EndUser").implement({
  fields: (t) => ({
    userId: t.exposeID("user_id"),
    workspaceId: t.exposeID("workspace_id"),
    status: t.field({ type: EndUserStatusEnum, resolve: (e) => enumValue(END_USER_STATUSES, e.status, "end-user status") }),
    planTier: t.exposeString("plan_tier", { nullable: true }),
    rateLimitOverride: t.exposeString("rate_limit_override", { nullable: true, description: "A JSON document held as a string, exactly as set." }),
    suspendedReason: t.exposeString("suspended_reason", { nullable: true }),
    suspendedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => date(e.suspended_at) }),
    userEmail: t.exposeString("user_email"),
    userUsername: t.exposeString("user_username"),
    createdAt: t.field({ type: "DateTime", nullable: true, description: "null until the state is first written.", resolve: (e) => date(e.created_at) }),
    updatedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => date(e.updated_at) }),
  }),
});

builder.queryFields((t) => ({
  endUsers: t.field({
    type: [EndUserRef],
    description: "Every member as an end user; q is a case-insensitive substring of email or username.",
    args: {
      status: t.arg({ type: EndUserStatusEnum, required: false }),
      planTier: t.arg.string({ required: false }),
      q: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const filter = parseArg(listEndUsersQuery, toWire(args), "args");
      return (await ctx.services.endUsers.list(ctx.actor, ctx.actor.tenantId, filter)).items;
    },
  }),
  endUser: t.field({
    type: EndUserRef,
    nullable: true,
    description: "null when the user is not a member of the workspace.",
    args: { userId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(() => ctx.services.endUsers.get(ctx.actor, ctx.actor.tenantId, parseArg(idSchema, args.userId, "userId"))),
  }),
}));

const UpdateEndUserInput = builder.inputType("UpdateEndUserInput", {
  description: "Any subset; null clears planTier, rateLimitOverride or suspendedReason. Creates the state (active) if absent.",
  fields: (t) => ({
    status: t.field({ type: EndUserStatusEnum, required: false }),
    planTier: t.string({ required: false }),
    rateLimitOverride: t.string({ required: false, description: "A string holding a JSON document." }),
    suspendedReason: t.string({ required: false }),
  }),
});

builder.mutationFields((t) => ({
  updateEndUser: t.field({
    type: EndUserRef,
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: UpdateEndUserInput, required: true }) },
    resolve: (_root, args, ctx) =>
      ctx.services.endUsers.patch(ctx.actor, ctx.actor.tenantId, parseArg(idSchema, args.userId, "userId"), parseArg(patchEndUserSchema, toWirePatch(args.input), "input")),
  }),
  suspendEndUser: t.field({
    type: EndUserRef,
    args: { userId: t.arg.id({ required: true }), reason: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => {
      const { reason } = parseArg(suspendEndUserSchema, toWire({ reason: args.reason }), "args");
      return ctx.services.endUsers.suspend(ctx.actor, ctx.actor.tenantId, parseArg(idSchema, args.userId, "userId"), reason);
    },
  }),
  reactivateEndUser: t.field({
    type: EndUserRef,
    description: "Only from suspended (CONFLICT otherwise).",
    args: { userId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.endUsers.reactivate(ctx.actor, ctx.actor.tenantId, parseArg(idSchema, args.userId, "userId")),
  }),
}));
