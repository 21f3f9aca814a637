// The per-application access views on the graph (docs/access-explained.md "On the graph"): tool
// exposure, scopes with their impact, access assignments, end-user access summary and one user's
// effective access with its paths, as fields of ResourceServer. Each calls the same read-model or
// service method as its /svc/v1 route, so the answer and the role rule (owners, admins, read-only
// auditors: docs/decisions/0032) are REST's. The paged views are offered on ONE application per
// operation (a loader refuses more: src/graphql/loaders.ts, docs/decisions/0050); effective access
// is batched over every application of the operation (effective-access-many.ts). Lists take `first`/`after`
// like the graph's other lists (docs/graphql.md "Pagination"), with the REST cursors.
import type { AccessReadModels, ApplicationEffectiveAccess } from "../../modules/access-views";
import { ASSIGNMENT_LIST, END_USER_LIST, HOLDER_LIST, SCOPE_LIST, TOOL_LIST } from "../../modules/access-views/read-models";
import { scopeTokenSchema } from "../../modules/resource-servers";
import { builder } from "../builder";
import type { GraphQLContext } from "../context";
import { idSchema, parseArg } from "../validation";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";
import { nullIfNotFound } from "./people-support";
import { ResourceServerRef } from "./resource-server";

type Rm = AccessReadModels;
type ToolExposureItem = Awaited<ReturnType<Rm["toolExposure"]>>["items"][number] & { cursor: string };
type ScopeItem = Awaited<ReturnType<Rm["scopes"]>>["items"][number] & { cursor: string };
type ScopeImpact = Awaited<ReturnType<Rm["scopeImpact"]>>;
type Holder = ScopeImpact["users"]["items"][number];
type AssignmentItem = Awaited<ReturnType<Rm["accessAssignments"]>>["items"][number];
type EndUserItem = Awaited<ReturnType<Rm["endUserAccessSummary"]>>["items"][number] & { cursor: string };

const date = (iso: string | null) => (iso === null ? null : new Date(iso));
const SINGLE = "Offered on one application per operation (e.g. `resourceServer(id)`); asked on several, it is BAD_USER_INPUT.";

const RoleNameRef = builder.objectRef<{ role_id: string; role_name: string | null }>("AccessRoleName").implement({
  description: "A role named in an access view.",
  fields: (t) => ({ roleId: t.exposeID("role_id"), roleName: t.exposeString("role_name", { nullable: true }) }),
});

const ToolNameRef = builder.objectRef<{ tool_id: string; name: string }>("AccessToolName").implement({
  fields: (t) => ({ toolId: t.exposeID("tool_id"), name: t.exposeString("name") }),
});

const ToolExposureRef = builder.objectRef<ToolExposureItem>("ToolExposure").implement({
  description: "One tool of an application: who may reach it (GET /svc/v1/applications/:id/tool-exposure).",
  fields: (t) => ({
    toolId: t.exposeID("tool_id"),
    name: t.exposeString("name"),
    scopes: t.exposeStringList("scopes", { description: "The scopes the tool is mapped to." }),
    public: t.exposeBoolean("public"),
    mapped: t.exposeBoolean("mapped", { description: "Public or mapped to at least one scope (an unmapped tool is denied to everyone)." }),
    definitionChanged: t.exposeBoolean("definition_changed"),
    users: t.exposeInt("users", { description: "Users holding one of its scopes now (the scope resolver's rule)." }),
    groups: t.exposeInt("groups", { description: "Groups bound to a role granting one of its scopes." }),
    clients: t.exposeInt("clients", { description: "Approved pre-registered clients allowed one of its scopes, and service accounts bound to a role granting one." }),
    roles: t.field({ type: [RoleNameRef], description: "The roles granting one of its scopes.", resolve: (i) => i.roles }),
    cursor: t.exposeString("cursor", { description: CURSOR_DESCRIPTION }),
  }),
});

const ScopeAccessRef = builder.objectRef<ScopeItem>("ScopeAccess").implement({
  description: "One scope of an application and its impact (GET /svc/v1/applications/:id/scopes); its holders: `ResourceServer.scopeImpact`.",
  fields: (t) => ({
    scopeId: t.exposeString("scope_id", { description: "The scope token." }),
    name: t.exposeString("name", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    tools: t.field({ type: [ToolNameRef], description: "Tools it unlocks, by name (at most 50; see toolsCount).", resolve: (s) => s.tools }),
    toolsCount: t.exposeInt("tools_count"),
    roles: t.field({ type: [RoleNameRef], description: "Roles granting it on this application.", resolve: (s) => s.roles }),
    usersCount: t.exposeInt("users_count", { description: "Users holding it now (the scope resolver's rule)." }),
    cursor: t.exposeString("cursor", { description: CURSOR_DESCRIPTION }),
  }),
});

type Through = Holder["through"][number];
const HolderPathRef = builder.objectRef<Through>("ScopeHolderPath").implement({
  fields: (t) => ({
    bindingId: t.exposeID("binding_id"),
    via: t.exposeString("via", { description: "direct, or group:<name>" }),
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name"),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (p) => date(p.expires_at) }),
  }),
});

const HolderRef = builder.objectRef<Holder>("ScopeHolder").implement({
  fields: (t) => ({
    userId: t.exposeID("user_id"),
    email: t.exposeString("email", { nullable: true }),
    through: t.field({ type: [HolderPathRef], description: "The bindings through which the user holds the scope.", resolve: (h) => h.through }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (h) => HOLDER_LIST.encode([h.user_id]) }),
  }),
});

const ScopeImpactRef = builder.objectRef<ScopeImpact>("ScopeImpact").implement({
  description: "One scope: what it unlocks, who grants it, and one page of who holds it through what (GET /svc/v1/applications/:id/scopes/:scope_id/impact).",
  fields: (t) => ({
    scopeId: t.exposeString("scope_id"),
    name: t.exposeString("name", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    tools: t.field({ type: [ToolNameRef], resolve: (s) => s.tools }),
    toolsCount: t.exposeInt("tools_count"),
    roles: t.field({ type: [RoleNameRef], resolve: (s) => s.roles }),
    usersCount: t.exposeInt("users_count"),
    holders: t.field({ type: [HolderRef], description: "The page of holders asked for by the field's first/after, by user id.", resolve: (s) => s.users.items }),
  }),
});

const AssignmentRef = builder.objectRef<AssignmentItem>("AccessAssignment").implement({
  description: "A role binding reaching the application (GET /svc/v1/applications/:id/access-assignments).",
  fields: (t) => ({
    bindingId: t.exposeID("binding_id"),
    subject: t.exposeString("subject", { description: "user | group | service_account" }),
    subjectId: t.exposeID("subject_id"),
    subjectName: t.exposeString("subject_name", { nullable: true, description: "The user's email, the group's name or the client's name." }),
    clientId: t.string({ nullable: true, description: "The OAuth client_id of a service account (null for users and groups).", resolve: (a) => ("client_id" in a ? (a.client_id ?? null) : null) }),
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name"),
    scopes: t.exposeStringList("scopes", { description: "What the role grants on this application." }),
    scopeType: t.exposeString("scope_type", { nullable: true }),
    scopeId: t.exposeString("scope_id", { nullable: true }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (a) => date(a.expires_at) }),
    expired: t.exposeBoolean("expired"),
    source: t.exposeString("source"),
    grantedBy: t.exposeID("granted_by", { nullable: true }),
    grantedByEmail: t.exposeString("granted_by_email", { nullable: true }),
    grantedAt: t.field({ type: "DateTime", resolve: (a) => new Date(a.granted_at) }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (a) => ASSIGNMENT_LIST.encode([new Date(a.granted_at), a.binding_id]) }),
  }),
});

type Via = EndUserItem["via"][number];
const EndUserViaRef = builder.objectRef<Via>("EndUserAccessVia").implement({
  fields: (t) => ({
    bindingId: t.exposeID("binding_id"),
    subject: t.exposeString("subject", { description: "user (direct) or group" }),
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name", { nullable: true }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (v) => date(v.expires_at) }),
  }),
});

const EndUserAccessRef = builder.objectRef<EndUserItem>("EndUserAccess").implement({
  description: "One member's access to the application (GET /svc/v1/applications/:id/end-user-access-summary).",
  fields: (t) => ({
    userId: t.exposeID("user_id"),
    email: t.exposeString("email"),
    membershipStatus: t.exposeString("membership_status"),
    endUserStatus: t.exposeString("end_user_status"),
    active: t.exposeBoolean("active", { description: "May hold anything now (an active member, not a suspended end user)." }),
    scopes: t.exposeStringList("scopes"),
    tools: t.exposeStringList("tools", { description: "Tools callable now, by name (the served policy's scope matrix)." }),
    via: t.field({ type: [EndUserViaRef], description: "The bindings that count now.", resolve: (e) => e.via }),
    lastTokenIssuedAt: t.field({ type: "DateTime", nullable: true, description: "The latest refresh token issued to the user for this application.", resolve: (e) => date(e.last_token_issued_at) }),
    cursor: t.exposeString("cursor", { description: CURSOR_DESCRIPTION }),
  }),
});

type Path = ApplicationEffectiveAccess["paths"][number];
const PathScopeRef = builder.objectRef<Path["scopes"][number]>("EffectiveAccessPathScope").implement({
  fields: (t) => ({ scope: t.exposeString("scope"), tools: t.exposeStringList("tools", { description: "Tools this scope unlocks (the served policy)." }) }),
});
const PathRef = builder.objectRef<Path>("EffectiveAccessPath").implement({
  description: "user -> (group) -> binding -> role -> scope -> tool.",
  fields: (t) => ({
    via: t.exposeString("via", { description: "direct, or group:<name>" }),
    bindingId: t.exposeID("binding_id"),
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name"),
    scopeType: t.exposeString("scope_type", { nullable: true }),
    scopeId: t.exposeString("scope_id", { nullable: true }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (p) => date(p.expires_at) }),
    scopes: t.field({ type: [PathScopeRef], resolve: (p) => p.scopes }),
  }),
});
const CallableToolRef = builder.objectRef<ApplicationEffectiveAccess["tools"][number]>("EffectiveAccessTool").implement({
  fields: (t) => ({ toolId: t.exposeID("tool_id"), name: t.exposeString("name"), public: t.exposeBoolean("public"), scopes: t.exposeStringList("scopes") }),
});
const ExpiredBindingRef = builder.objectRef<ApplicationEffectiveAccess["expired_bindings"][number]>("EffectiveAccessExpiredBinding").implement({
  fields: (t) => ({
    bindingId: t.exposeID("binding_id"),
    roleName: t.exposeString("role_name"),
    via: t.exposeString("via"),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (b) => date(b.expires_at) }),
  }),
});

const AppEffectiveAccessRef = builder.objectRef<ApplicationEffectiveAccess>("ApplicationEffectiveAccess").implement({
  description: "What one user may do on the application now and why (GET /svc/v1/applications/:id/effective-access).",
  fields: (t) => ({
    userId: t.exposeID("user_id"),
    userEmail: t.exposeString("user_email"),
    identityProvider: t.exposeString("identity_provider", { nullable: true }),
    lastSignInAt: t.field({ type: "DateTime", nullable: true, resolve: (a) => date(a.last_sign_in_at) }),
    active: t.exposeBoolean("active"),
    membershipStatus: t.exposeString("membership_status", { nullable: true }),
    endUserStatus: t.exposeString("end_user_status"),
    scopes: t.exposeStringList("scopes"),
    tools: t.field({ type: [CallableToolRef], resolve: (a) => a.tools }),
    paths: t.field({ type: [PathRef], resolve: (a) => a.paths }),
    expiredBindings: t.field({ type: [ExpiredBindingRef], description: "Bindings reaching the application that do not count now (expired).", resolve: (a) => a.expired_bindings }),
  }),
});

/** The read of one application for `field` with `args`, through the single-application loader. */
function one<T>(ctx: GraphQLContext, field: string, args: unknown, applicationId: string, read: () => Promise<T>): Promise<T> {
  return ctx.loaders.singleApplication(field, args, () => read()).load(applicationId);
}

builder.objectFields(ResourceServerRef, (t) => ({
  toolExposure: t.field({
    type: [ToolExposureRef],
    description: `Per tool: scopes, public, user/group/client counts and the roles granting it, by name (one page: first, after). Owners, admins, read-only auditors. ${SINGLE}`,
    args: { ...pageArgs },
    resolve: (rs, args, ctx) => {
      const page = pageOf(TOOL_LIST, args);
      return one(ctx, "toolExposure", args, rs.id, async () => {
        const r = await ctx.services.accessViews.readModels.toolExposure(ctx.actor, rs.id, page);
        return r.items.map((i) => ({ ...i, cursor: TOOL_LIST.encode([i.name, i.tool_id]) }));
      });
    },
  }),
  scopeAccess: t.field({
    type: [ScopeAccessRef],
    description: `Per scope: the tools it unlocks, the roles granting it and how many users hold it, by scope (one page: first, after). Owners, admins, read-only auditors. ${SINGLE}`,
    args: { ...pageArgs },
    resolve: (rs, args, ctx) => {
      const page = pageOf(SCOPE_LIST, args);
      return one(ctx, "scopeAccess", args, rs.id, async () => {
        const r = await ctx.services.accessViews.readModels.scopes(ctx.actor, rs.id, page);
        // The list's cursor holds the scope row's id, which the REST item does not carry.
        const rows = await ctx.reads.scope.findMany({ where: { resourceServerId: rs.id, key: { in: r.items.map((i) => i.scope_id) } }, select: { id: true, key: true } });
        const idOf = new Map(rows.map((s) => [s.key, s.id]));
        return r.items.map((i) => ({ ...i, cursor: SCOPE_LIST.encode([i.scope_id, idOf.get(i.scope_id) ?? ""]) }));
      });
    },
  }),
  scopeImpact: t.field({
    type: ScopeImpactRef,
    nullable: true,
    description: `One scope's impact with one page of its holders (first, after page the holders); null for an unknown scope. Owners, admins, read-only auditors. ${SINGLE}`,
    args: { scopeId: t.arg.string({ required: true, description: "The scope token." }), ...pageArgs },
    resolve: (rs, args, ctx) => {
      const scope = parseArg(scopeTokenSchema, args.scopeId, "scopeId");
      const page = pageOf(HOLDER_LIST, args);
      return one(ctx, "scopeImpact", args, rs.id, () => nullIfNotFound(() => ctx.services.accessViews.readModels.scopeImpact(ctx.actor, rs.id, scope, page)));
    },
  }),
  accessAssignments: t.field({
    type: [AssignmentRef],
    description: `Every role binding reaching the application (tenant-wide or scoped to it, granting something here), expired ones included, oldest first (one page: first, after). Owners, admins, read-only auditors. ${SINGLE}`,
    args: { ...pageArgs },
    resolve: (rs, args, ctx) => {
      const page = pageOf(ASSIGNMENT_LIST, args);
      return one(ctx, "accessAssignments", args, rs.id, async () => (await ctx.services.accessViews.readModels.accessAssignments(ctx.actor, rs.id, page)).items);
    },
  }),
  endUserAccess: t.field({
    type: [EndUserAccessRef],
    description: `Per member of the workspace: status, scopes, tools, via which bindings, last token issued, oldest membership first (one page: first, after). Owners, admins, read-only auditors. ${SINGLE}`,
    args: { ...pageArgs },
    resolve: (rs, args, ctx) => {
      const page = pageOf(END_USER_LIST, args);
      return one(ctx, "endUserAccess", args, rs.id, async () => {
        const r = await ctx.services.accessViews.readModels.endUserAccessSummary(ctx.actor, rs.id, page);
        // The list's cursor is the membership's (createdAt, id), which the REST item does not carry.
        const rows = await ctx.reads.membership.findMany({ where: { userId: { in: r.items.map((i) => i.user_id) } }, select: { id: true, userId: true, createdAt: true } });
        const byUser = new Map(rows.map((m) => [m.userId, m]));
        return r.items.map((i) => {
          const m = byUser.get(i.user_id);
          return { ...i, cursor: m ? END_USER_LIST.cursorAfter(m) : "" };
        });
      });
    },
  }),
  effectiveAccess: t.field({
    type: AppEffectiveAccessRef,
    nullable: true,
    description:
      "What this user may do on the application now, with every path (user -> group -> binding -> role -> scope -> tool); null for a user who is not in the workspace. Owners, admins, read-only auditors. Batched: asked on a list of applications, one round of queries answers them all.",
    args: { userId: t.arg.id({ required: true }) },
    resolve: (rs, args, ctx) => {
      const userId = parseArg(idSchema, args.userId, "userId");
      return nullIfNotFound(() => ctx.loaders.applicationEffectiveAccess(userId).load(rs.id));
    },
  }),
}));
