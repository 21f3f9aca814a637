// Role: a name and the scopes it grants per resource server (docs/decisions/0012-admin-interfaces.md). Grants
// come with the role's own row (one selection); writes go through RoleService like the REST routes.
import { ROLE_LIST, roleInputSchema } from "../../modules/rbac";
import { builder } from "../builder";
import { idSchema, parseArg } from "../validation";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";
import { inOrder, nullIfNotFound } from "./people-support";

const RoleGrantRef = builder.objectRef<{ resourceServerId: string; scopeIds: string[] }>("RoleGrant").implement({
  description: "The scopes (ids as the server defines them) a role grants on one resource server.",
  fields: (t) => ({
    resourceServerId: t.exposeID("resourceServerId"),
    scopeIds: t.exposeStringList("scopeIds"),
  }),
});

/** One entry per server, scopes sorted (the REST view's order). */
function groupGrants(grants: { resourceServerId: string; scopeKey: string }[]) {
  const byServer = new Map<string, string[]>();
  for (const g of grants) byServer.set(g.resourceServerId, [...(byServer.get(g.resourceServerId) ?? []), g.scopeKey]);
  return [...byServer.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([resourceServerId, scopeIds]) => ({ resourceServerId, scopeIds: scopeIds.sort() }));
}

builder.prismaObject("Role", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("tenantId"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    grants: t.field({
      type: [RoleGrantRef],
      select: { grants: { select: { resourceServerId: true, scopeKey: true } } },
      resolve: (role) => groupGrants(role.grants),
    }),
    // Who holds the role (the cockpit's "who can call this tool"): folded into the roles' read.
    bindings: t.relation("bindings", {
      description: "Bindings of this role (expired ones included: compare expiresAt), oldest first.",
      query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { name: true }, resolve: (role) => ROLE_LIST.cursorAfter(role) }),
  }),
});

builder.queryFields((t) => ({
  roles: t.prismaField({
    type: ["Role"],
    description: "The workspace's roles by name (one page: first, after).",
    args: { ...pageArgs },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const ids = (await ctx.services.rbac.roles.list(ctx.actor, pageOf(ROLE_LIST, args))).items.map((r) => r.id);
      if (ids.length === 0) return [];
      return inOrder(ids, await ctx.reads.role.findMany({ ...selection, where: { id: { in: ids } } }));
    },
  }),
  role: t.prismaField({
    type: "Role",
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const role = await nullIfNotFound(() => ctx.services.rbac.roles.get(ctx.actor, parseArg(idSchema, args.id, "id")));
      return role && ctx.reads.role.findUnique({ ...selection, where: { id: role.id } });
    },
  }),
}));

const RoleGrantInput = builder.inputType("RoleGrantInput", {
  fields: (t) => ({
    resourceServerId: t.id({ required: true }),
    scopeIds: t.stringList({ required: true }),
  }),
});

const RoleInput = builder.inputType("RoleInput", {
  description: "The whole role: replaceRole replaces name, description and grants.",
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string({ required: false }),
    grants: t.field({ type: [RoleGrantInput], required: true }),
  }),
});

function roleInput(input: { name: string; description?: string | null; grants: { resourceServerId: string | number; scopeIds: string[] }[] }) {
  const wire = {
    name: input.name,
    description: input.description,
    grants: input.grants.map((g) => ({ resource_server_id: String(g.resourceServerId), scope_ids: g.scopeIds })),
  };
  return parseArg(roleInputSchema, wire, "input");
}

builder.mutationFields((t) => ({
  createRole: t.prismaField({
    type: "Role",
    args: { input: t.arg({ type: RoleInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const role = await ctx.services.rbac.roles.create(ctx.actor, roleInput(args.input));
      return ctx.reads.role.findUniqueOrThrow({ ...selection, where: { id: role.id } });
    },
  }),
  replaceRole: t.prismaField({
    type: "Role",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RoleInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query };
      const role = await ctx.services.rbac.roles.replace(ctx.actor, parseArg(idSchema, args.id, "id"), roleInput(args.input));
      return ctx.reads.role.findUniqueOrThrow({ ...selection, where: { id: role.id } });
    },
  }),
  deleteRole: t.boolean({
    description: "CONFLICT (with binding_ids and resource_server_ids in extensions) while a binding or an access policy uses the role.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.rbac.roles.remove(ctx.actor, parseArg(idSchema, args.id, "id"));
      return true;
    },
  }),
}));
