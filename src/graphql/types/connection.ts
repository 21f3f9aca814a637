// Connections (DESIGN "Clients and connections"): a dcr or cimd client's link to one resource
// server of this workspace, created at its first authorization there. Listed on resource servers
// and on clients; revoked through the same service method as
// POST /svc/resource-servers/:id/clients/:client_id/revoke (ClientService.revoke), so its tokens
// for that server introspect inactive at once and its other connections stay.
import { CLIENT_STATUSES, CONNECTION_LIST, clientIdParamSchema } from "../../modules/clients";
import { builder } from "../builder";
import { idSchema, parseArg } from "../validation";
import { ClientStatusEnum, enumValue, stringList } from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

interface GrantedRoleShape {
  role_id: string;
  role_name: string;
}
const GrantedRole = builder.objectRef<GrantedRoleShape>("GrantedRole").implement({
  description: "A role through which a connection's scopes were granted (the spec's \"Active connection row\").",
  fields: (t) => ({
    roleId: t.exposeID("role_id"),
    roleName: t.exposeString("role_name"),
  }),
});

builder.prismaObject("Connection", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    clientId: t.exposeString("clientId", { description: "The OAuth client_id (opaque for dcr, the metadata URL for cimd)." }),
    resourceServerId: t.exposeID("resourceServerId"),
    workspaceId: t.exposeID("tenantId"),
    status: t.field({ type: ClientStatusEnum, select: { status: true }, resolve: (c) => enumValue(CLIENT_STATUSES, c.status, "connection status") }),
    scopesGranted: t.stringList({
      description: "Scopes granted at the latest authorization; tokens are worth what the user holds now.",
      select: { scopesGranted: true },
      resolve: (c) => stringList(c.scopesGranted),
    }),
    rolesGranted: t.field({
      type: [GrantedRole],
      description: "The roles through which the signed-in user held those scopes at the latest authorization.",
      select: { rolesGranted: true },
      resolve: (c) => (c.rolesGranted as GrantedRoleShape[] | null) ?? [],
    }),
    connectedUserId: t.exposeID("lastUserId", { nullable: true, description: "The user who signed in at the latest authorization." }),
    firstConnectedAt: t.expose("firstConnectedAt", { type: "DateTime" }),
    lastConnectedAt: t.expose("lastConnectedAt", { type: "DateTime" }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
    // To-one relations follow the foreign key of this (workspace-scoped) row (storage/tenant-scope.ts).
    client: t.relation("client", { description: "The registration (name unverified: the client chose it)." }),
    resourceServer: t.relation("resourceServer"),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { createdAt: true }, resolve: (c) => CONNECTION_LIST.cursorAfter(c) }),
  }),
});

// The same list on both parents: the reader ANDs the workspace into it (storage/tenant-scope.ts).
for (const parent of ["ResourceServer", "Client"] as const) {
  builder.prismaObjectField(parent, "connections", (t) =>
    t.relation("connections", {
      description: "Connections of dcr/cimd clients in this workspace, oldest first (one page: first, after).",
      args: { status: t.arg({ type: ClientStatusEnum, required: false }), ...pageArgs },
      query: (args) => {
        const page = pageOf(CONNECTION_LIST, args);
        return { where: CONNECTION_LIST.where(args.status ? { status: args.status } : {}, page.cursor), orderBy: CONNECTION_LIST.orderBy, take: page.limit };
      },
    }),
  );
}

builder.mutationField("revokeConnection", (t) =>
  t.prismaField({
    type: "Connection",
    description: "Revokes a dcr/cimd client's connection to this server only (idempotent); its tokens for the server introspect inactive at once.",
    args: { resourceServerId: t.arg.id({ required: true }), clientId: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const resourceServerId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const clientId = parseArg(clientIdParamSchema, args.clientId, "clientId");
      await ctx.services.clients.revokeConnection(ctx.actor, resourceServerId, clientId);
      return ctx.reads.connection.findFirstOrThrow({ ...query, where: { resourceServerId, clientId } });
    },
  }),
);
