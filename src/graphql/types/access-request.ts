// Access requests and agent connections on the graph (docs/enterprise-agents.md): `accessRequests`
// per workspace or per server with their status, and approve / deny / revoke, through the same
// service as /svc/access-requests (owners and admins decide; read-only auditors may only list).
import { ACCESS_REQUEST_LIST, ACCESS_REQUEST_STATUSES, approveAccessRequestSchema, denyAccessRequestSchema, type AccessRequestView } from "../../modules/access-requests";
import { builder } from "../builder";
import { idSchema, parseArg } from "../validation";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

const AccessRequestStatusEnum = builder.enumType("AccessRequestStatus", { values: ACCESS_REQUEST_STATUSES });

const AccessRequestRef = builder.objectRef<AccessRequestView>("AccessRequest").implement({
  description: "A first-time agent connection (client, user, server) from an ID-JAG: pending, approved (the agent's connection), denied, or revoked.",
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspace_id"),
    resourceServerId: t.exposeID("resource_server_id"),
    resourceServerName: t.exposeString("resource_server_name", { nullable: true }),
    clientId: t.exposeString("client_id"),
    clientName: t.exposeString("client_name", { nullable: true }),
    userId: t.exposeID("user_id"),
    userEmail: t.exposeString("user_email", { nullable: true }),
    kind: t.exposeString("kind"),
    status: t.field({ type: AccessRequestStatusEnum, resolve: (r) => r.status }),
    scopesRequested: t.exposeStringList("scopes_requested"),
    scopesGranted: t.exposeStringList("scopes_granted", { nullable: true, description: "The approval's narrowing; null = none (tokens are still bounded by the ID-JAG and what the user holds)." }),
    roleId: t.exposeID("role_id", { nullable: true }),
    reason: t.exposeString("reason", { nullable: true }),
    decidedBy: t.exposeID("decided_by", { nullable: true }),
    decidedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => (r.decided_at ? new Date(r.decided_at) : null) }),
    lastConnectedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => (r.last_connected_at ? new Date(r.last_connected_at) : null) }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => new Date(r.created_at) }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (r) => ACCESS_REQUEST_LIST.cursorAfter({ createdAt: new Date(r.created_at), id: r.id }) }),
  }),
});

builder.queryField("accessRequests", (t) =>
  t.field({
    type: [AccessRequestRef],
    description: "The workspace's access requests (or one server's), newest first (one page: first, after).",
    args: { status: t.arg({ type: AccessRequestStatusEnum, required: false }), resourceServerId: t.arg.id({ required: false }), ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const serverId = args.resourceServerId ? parseArg(idSchema, args.resourceServerId, "resourceServerId") : undefined;
      const page = await ctx.services.accessRequests.list(ctx.actor, { ...(args.status ? { status: args.status } : {}), ...pageOf(ACCESS_REQUEST_LIST, args) }, serverId);
      return page.items;
    },
  }),
);

builder.mutationField("approveAccessRequest", (t) =>
  t.field({
    type: AccessRequestRef,
    description: "Approves a pending or denied request (or enables a revoked connection again), optionally narrowing its scopes or binding a role to the user on the server.",
    args: { id: t.arg.id({ required: true }), scopes: t.arg.stringList({ required: false }), roleId: t.arg.id({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const input = parseArg(approveAccessRequestSchema, { ...(args.scopes ? { scopes: args.scopes } : {}), ...(args.roleId ? { role_id: args.roleId } : {}) }, "input");
      return ctx.services.accessRequests.approve(ctx.actor, parseArg(idSchema, args.id, "id"), input);
    },
  }),
);

builder.mutationField("denyAccessRequest", (t) =>
  t.field({
    type: AccessRequestRef,
    description: "Denies a pending request with a reason.",
    args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ctx.services.accessRequests.deny(ctx.actor, parseArg(idSchema, args.id, "id"), parseArg(denyAccessRequestSchema, { reason: args.reason }, "reason")),
  }),
);

builder.mutationField("revokeAgentConnection", (t) =>
  t.field({
    type: AccessRequestRef,
    description: "Revokes an approved agent connection: its tokens introspect inactive at once, on every instance.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ctx.services.accessRequests.revoke(ctx.actor, parseArg(idSchema, args.id, "id")),
  }),
);
