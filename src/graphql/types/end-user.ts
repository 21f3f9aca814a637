// EndUser: a member's end-user state (spec "Tenant end-user state"), with the user's email and
// username joined. Not a prismaObject: a member without a stored row is an end user with the
// defaults, so the service's view is the shape. Same EndUserService as the REST end-users routes.
import { END_USER_LIST, END_USER_STATUSES, listEndUsersQuery, patchEndUserSchema, suspendEndUserSchema, type EndUserView } from "../../modules/tenancy";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { enumValue } from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";
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
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (e) => END_USER_LIST.encode([e.user_email, e.user_id]) }),
  }),
});

builder.queryFields((t) => ({
  endUsers: t.field({
    type: [EndUserRef],
    description: "Every member as an end user, by email; q is a case-insensitive substring of email or username (one page: first, after).",
    args: {
      status: t.arg({ type: EndUserStatusEnum, required: false }),
      planTier: t.arg.string({ required: false }),
      q: t.arg.string({ required: false }),
      ...pageArgs,
    },
    resolve: async (_root, args, ctx) => {
      const filter = parseArg(listEndUsersQuery, toWire({ status: args.status, planTier: args.planTier, q: args.q }), "args");
      const page = pageOf(END_USER_LIST, args);
      if (!filter.q) return (await ctx.services.endUsers.list(ctx.actor, ctx.actor.tenantId, { ...filter, ...page })).items;
      // With q, a REST page may come back short (the literal re-check drops LIKE-only matches) and
      // carries next_cursor for that; a plain list has none, so read on until the page is full or
      // the list ends: here, fewer than `first` items always means the last page.
      const items: EndUserView[] = [];
      let cursor = page.cursor;
      for (;;) {
        const read = await ctx.services.endUsers.list(ctx.actor, ctx.actor.tenantId, { ...filter, limit: page.limit, cursor });
        items.push(...read.items);
        // Cut mid-page is safe: the next page starts after the last item returned, wherever that is.
        if (items.length >= page.limit || read.next_cursor === null) return items.slice(0, page.limit);
        cursor = END_USER_LIST.decode(read.next_cursor)!;
      }
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
