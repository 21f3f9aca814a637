// Membership: a user's place in the workspace (spec "Tenant membership"). Queries and mutations
// call the same MembershipService as /uflow/v2/tenants/:tenant_id/memberships.
import { MEMBERSHIP_TYPES } from "../../shared/actor";
import { MEMBERSHIP_LIST, MEMBERSHIP_STATUSES, createMembershipSchema, listMembershipsQuery, updateMembershipSchema } from "../../modules/tenancy";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { MembershipTypeEnum, enumValue } from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";
import { inOrder, nullIfNotFound, toWirePatch } from "./people-support";

export const MembershipStatusEnum = builder.enumType("MembershipStatus", { values: MEMBERSHIP_STATUSES });

export const MembershipRef = builder.prismaObject("Membership", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("tenantId"),
    userId: t.exposeID("userId"),
    user: t.relation("user"),
    membershipType: t.field({
      type: MembershipTypeEnum,
      select: { membershipType: true },
      resolve: (m) => enumValue(MEMBERSHIP_TYPES, m.membershipType, "membership type"),
    }),
    status: t.field({ type: MembershipStatusEnum, select: { status: true }, resolve: (m) => enumValue(MEMBERSHIP_STATUSES, m.status, "membership status") }),
    source: t.exposeString("source"),
    externalId: t.exposeString("externalId", { nullable: true }),
    suspendedAt: t.expose("suspendedAt", { type: "DateTime", nullable: true, description: "Set when the status became suspended; null otherwise." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { createdAt: true }, resolve: (m) => MEMBERSHIP_LIST.cursorAfter(m) }),
  }),
});

builder.queryFields((t) => ({
  memberships: t.prismaField({
    type: ["Membership"],
    description: "The workspace's memberships, oldest first, optionally filtered by status and type (one page: first, after).",
    args: { status: t.arg({ type: MembershipStatusEnum, required: false }), type: t.arg({ type: MembershipTypeEnum, required: false }), ...pageArgs },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query }; // read up front: the early return below is not a forgotten query
      const filter = { ...parseArg(listMembershipsQuery, toWire({ status: args.status, type: args.type }), "args"), ...pageOf(MEMBERSHIP_LIST, args) };
      const ids = (await ctx.services.memberships.list(ctx.actor, ctx.actor.tenantId, filter)).items.map((m) => m.id);
      if (ids.length === 0) return [];
      return inOrder(ids, await ctx.reads.membership.findMany({ ...selection, where: { id: { in: ids } } }));
    },
  }),
  membership: t.prismaField({
    type: "Membership",
    nullable: true,
    description: "The membership of one user; null when the user is not a member of the workspace.",
    args: { userId: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const userId = parseArg(idSchema, args.userId, "userId");
      const m = await nullIfNotFound(() => ctx.services.memberships.get(ctx.actor, ctx.actor.tenantId, userId));
      return m && ctx.reads.membership.findUnique({ ...selection, where: { id: m.id } });
    },
  }),
}));

const AddMembershipInput = builder.inputType("AddMembershipInput", {
  fields: (t) => ({
    userId: t.id({ required: true }),
    membershipType: t.field({ type: MembershipTypeEnum, required: false, description: "Default member." }),
    status: t.field({ type: MembershipStatusEnum, required: false, description: "Default active." }),
    source: t.string({ required: false, description: "Default api." }),
    externalId: t.string({ required: false }),
  }),
});

const UpdateMembershipInput = builder.inputType("UpdateMembershipInput", {
  description: "Any subset; externalId: null clears it.",
  fields: (t) => ({
    status: t.field({ type: MembershipStatusEnum, required: false }),
    membershipType: t.field({ type: MembershipTypeEnum, required: false }),
    externalId: t.string({ required: false }),
  }),
});

const AddMembershipPayload = builder.objectRef<{ id: string; created: boolean }>("AddMembershipPayload").implement({
  fields: (t) => ({
    created: t.exposeBoolean("created", { description: "false when the user already was a member (the row is returned unchanged)." }),
  }),
});
builder.objectField(AddMembershipPayload, "membership", (t) =>
  t.prismaField({
    type: "Membership",
    resolve: (query, parent, _args, ctx) => ctx.reads.membership.findUniqueOrThrow({ ...query, where: { id: parent.id } }),
  }),
);

builder.mutationFields((t) => ({
  addMembership: t.field({
    type: AddMembershipPayload,
    description: "Idempotent on the user: an existing membership comes back unchanged with created: false.",
    args: { input: t.arg({ type: AddMembershipInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const input = parseArg(createMembershipSchema, toWire(args.input), "input");
      const { membership, created } = await ctx.services.memberships.create(ctx.actor, ctx.actor.tenantId, input);
      return { id: membership.id, created };
    },
  }),
  updateMembership: t.prismaField({
    type: "Membership",
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: UpdateMembershipInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const userId = parseArg(idSchema, args.userId, "userId");
      const patch = parseArg(updateMembershipSchema, toWirePatch(args.input), "input");
      const m = await ctx.services.memberships.update(ctx.actor, ctx.actor.tenantId, userId, patch);
      return ctx.reads.membership.findUniqueOrThrow({ ...selection, where: { id: m.id } });
    },
  }),
  removeMembership: t.boolean({
    description: "Removes the user from the workspace (with their group memberships, direct bindings and end-user state here).",
    args: { userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.memberships.remove(ctx.actor, ctx.actor.tenantId, parseArg(idSchema, args.userId, "userId"));
      return true;
    },
  }),
}));
