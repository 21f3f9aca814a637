// Group and GroupMember: members through plugin-prisma selections (folded into the parent query),
// the group's role bindings through the request's loaders (bindings name their subject by id, not
// by a foreign key). Writes go through GroupService like the REST routes.
import { GROUP_LIST, GROUP_MEMBER_LIST, ROLE_BINDING_LIST, addGroupMemberSchema, createGroupSchema } from "../../modules/rbac";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";
import { inOrder, nullIfNotFound } from "./people-support";
import { RoleBindingRef } from "./role-binding";

builder.prismaObject("GroupMember", {
  select: { groupId: true, userId: true },
  fields: (t) => ({
    groupId: t.exposeID("groupId"),
    userId: t.exposeID("userId"),
    group: t.relation("group"),
    user: t.relation("user"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    cursor: t.string({ description: `${CURSOR_DESCRIPTION} (Group.members)`, select: { createdAt: true }, resolve: (m) => GROUP_MEMBER_LIST.cursorAfter(m) }),
  }),
});

export const GroupRef = builder.prismaObject("Group", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("tenantId"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    memberCount: t.relationCount("members"),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { name: true }, resolve: (g) => GROUP_LIST.cursorAfter(g) }),
    members: t.relation("members", {
      description: "The group's members in the order they joined (one page: first, after).",
      args: { ...pageArgs },
      query: (args) => {
        const page = pageOf(GROUP_MEMBER_LIST, args);
        return { where: GROUP_MEMBER_LIST.where({}, page.cursor), orderBy: GROUP_MEMBER_LIST.orderBy, take: page.limit };
      },
    }),
    roleBindings: t.field({
      type: [RoleBindingRef],
      description: "The group's own bindings (expired ones included), oldest first (one page: first, after).",
      args: { ...pageArgs },
      // One batch per page asked for; a bad first/after fails this field, not the whole batch.
      resolve: (g, args, ctx) => ctx.loaders.roleBindings("group", pageOf(ROLE_BINDING_LIST, args)).load(g.id),
    }),
  }),
});

builder.queryFields((t) => ({
  groups: t.prismaField({
    type: ["Group"],
    description: "The workspace's groups by name (one page: first, after).",
    args: { ...pageArgs },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const ids = (await ctx.services.rbac.groups.list(ctx.actor, pageOf(GROUP_LIST, args))).items.map((g) => g.id);
      if (ids.length === 0) return [];
      return inOrder(ids, await ctx.reads.group.findMany({ ...selection, where: { id: { in: ids } } }));
    },
  }),
  group: t.prismaField({
    type: "Group",
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const g = await nullIfNotFound(() => ctx.services.rbac.groups.get(ctx.actor, parseArg(idSchema, args.id, "id")));
      return g && ctx.reads.group.findUnique({ ...selection, where: { id: g.id } });
    },
  }),
}));

const CreateGroupInput = builder.inputType("CreateGroupInput", {
  fields: (t) => ({ name: t.string({ required: true }), description: t.string({ required: false }) }),
});

const AddGroupMemberPayload = builder.objectRef<{ groupId: string; userId: string; created: boolean }>("AddGroupMemberPayload").implement({
  fields: (t) => ({ created: t.exposeBoolean("created", { description: "false when the user already was a member." }) }),
});
builder.objectField(AddGroupMemberPayload, "member", (t) =>
  t.prismaField({
    type: "GroupMember",
    resolve: (query, p, _args, ctx) => ctx.reads.groupMember.findUniqueOrThrow({ ...query, where: { groupId_userId: { groupId: p.groupId, userId: p.userId } } }),
  }),
);

builder.mutationFields((t) => ({
  createGroup: t.prismaField({
    type: "Group",
    args: { input: t.arg({ type: CreateGroupInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const g = await ctx.services.rbac.groups.create(ctx.actor, parseArg(createGroupSchema, toWire(args.input), "input"));
      return ctx.reads.group.findUniqueOrThrow({ ...selection, where: { id: g.id } });
    },
  }),
  deleteGroup: t.boolean({
    description: "Deletes the group with its members and its role bindings.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.rbac.groups.remove(ctx.actor, parseArg(idSchema, args.id, "id"));
      return true;
    },
  }),
  addGroupMember: t.field({
    type: AddGroupMemberPayload,
    args: { groupId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const groupId = parseArg(idSchema, args.groupId, "groupId");
      const { user_id } = parseArg(addGroupMemberSchema, { user_id: args.userId }, "args");
      const { created } = await ctx.services.rbac.groups.addMember(ctx.actor, groupId, user_id);
      return { groupId, userId: user_id, created };
    },
  }),
  removeGroupMember: t.boolean({
    args: { groupId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.rbac.groups.removeMember(ctx.actor, parseArg(idSchema, args.groupId, "groupId"), parseArg(idSchema, args.userId, "userId"));
      return true;
    },
  }),
}));
