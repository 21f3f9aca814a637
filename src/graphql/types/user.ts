// User as the workspace sees them: a user belongs to one workspace (decision 0017), and every field here
// is still limited to the caller's workspace (their membership, end-user state, groups and bindings here).
// Nested rows come with the parent's query (plugin-prisma selections); bindings and effective
// access are batched per request (DataLoaders), so a list of users costs a fixed number of queries.
import { ROLE_BINDING_LIST } from "../../modules/rbac";
import { toEndUserView } from "../../modules/tenancy";
import { builder } from "../builder";
import { idSchema, parseArg } from "../validation";
import { EndUserRef } from "./end-user";
import { GroupRef } from "./group";
import { MembershipRef } from "./membership";
import { pageArgs, pageOf } from "./pagination";
import { nullIfNotFound } from "./people-support";
import { EffectiveAccessItemRef, RoleBindingRef } from "./role-binding";

builder.prismaObject("User", {
  // Select mode: only requested columns are read (never passwordHash; no field selects it).
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    username: t.exposeString("username"),
    membership: t.field({
      type: MembershipRef,
      description: "The user's membership in this workspace.",
      // The reader keeps only this workspace's rows of every nested list (memberships, endUserState, groupMembers).
      select: (_args, _ctx, nestedSelection) => ({ memberships: nestedSelection({ take: 1 }) }),
      resolve: (u) => u.memberships[0]!,
    }),
    endUser: t.field({
      type: EndUserRef,
      description: "The user's end-user state in this workspace (the defaults when none is stored).",
      select: { email: true, username: true, endUserState: true },
      resolve: (u, _args, ctx) => toEndUserView(ctx.actor.tenantId, u, u.endUserState[0]),
    }),
    groups: t.field({
      type: [GroupRef],
      description: "The user's groups in this workspace, in the order they joined.",
      select: (_args, _ctx, nestedSelection) => ({
        groupMembers: { orderBy: [{ createdAt: "asc" }, { groupId: "asc" }], select: { group: nestedSelection(true) } },
      }),
      resolve: (u) => u.groupMembers.map((m) => m.group),
    }),
    roleBindings: t.field({
      type: [RoleBindingRef],
      description: "The user's own bindings here (not those of their groups), expired ones included, oldest first (one page: first, after).",
      args: { ...pageArgs },
      // One batch per page asked for; a bad first/after fails this field, not the whole batch.
      resolve: (u, args, ctx) => ctx.loaders.roleBindings("user", pageOf(ROLE_BINDING_LIST, args)).load(u.id),
    }),
    effectiveAccess: t.field({
      type: [EffectiveAccessItemRef],
      description: "Every binding affecting the user now, directly or through a group (as GET .../effective-access).",
      resolve: (u, _args, ctx) => ctx.loaders.effectiveAccess.load(u.id),
    }),
  }),
});

builder.queryField("user", (t) =>
  t.prismaField({
    type: "User",
    nullable: true,
    description: "A member of the workspace; null for anyone else.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const id = parseArg(idSchema, args.id, "id");
      const m = await nullIfNotFound(() => ctx.services.memberships.get(ctx.actor, ctx.actor.tenantId, id));
      return m && ctx.reads.user.findUnique({ ...selection, where: { id } });
    },
  }),
);
