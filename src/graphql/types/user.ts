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

interface FederatedLink {
  providerId: string;
  subject: string;
  lastSignInAt: Date;
  createdAt: Date;
  provider: { name: string };
}

const FederatedIdentityRef = builder.objectRef<FederatedLink>("FederatedIdentity").implement({
  description: "The user's link to an upstream identity provider: (provider, sub), decision 0041.",
  fields: (t) => ({
    providerId: t.exposeID("providerId"),
    providerName: t.string({ resolve: (l) => l.provider.name }),
    subject: t.exposeString("subject", { description: "The provider's `sub` for this person." }),
    lastSignInAt: t.expose("lastSignInAt", { type: "DateTime" }),
    linkedAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const federatedSelect = {
  federatedIdentities: {
    orderBy: [{ lastSignInAt: "desc" as const }, { id: "asc" as const }],
    take: 20,
    select: { providerId: true, subject: true, lastSignInAt: true, createdAt: true, provider: { select: { name: true } } },
  },
};

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
    federatedIdentities: t.field({
      type: [FederatedIdentityRef],
      description: "Where the account signs in from: its links to upstream identity providers, the most recent sign-in first.",
      select: federatedSelect,
      resolve: (u) => u.federatedIdentities,
    }),
    identityProvider: t.string({
      nullable: true,
      description: "The name of the identity provider of the account's most recent federated sign-in (null: it signs in with Toolgate's own factors only).",
      select: federatedSelect,
      resolve: (u) => u.federatedIdentities[0]?.provider.name ?? null,
    }),
    lastSignInAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the account last signed in through an identity provider.",
      select: federatedSelect,
      resolve: (u) => u.federatedIdentities[0]?.lastSignInAt ?? null,
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
