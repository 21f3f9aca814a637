// Workspace (= tenant): the caller's own workspace, and the caller's role in it.
import { builder } from "../builder";
import { MembershipTypeEnum } from "./enums";

builder.prismaObject("Workspace", {
  // Select mode: only the columns a query asks for are read.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    viewerRole: t.field({
      type: MembershipTypeEnum,
      description: "The caller's membership type here; cockpits use it to hide what the role may not do.",
      resolve: (_w, _args, ctx) => ctx.actor.role,
    }),
  }),
});

builder.queryField("workspace", (t) =>
  t.prismaField({
    type: "Workspace",
    description: "The workspace named by the admin JWT. Any active member may read it (it shows only the name and their own role).",
    resolve: async (query, _root, _args, ctx) => {
      // The service decides what the actor may see; the second read loads the selection.
      const workspace = await ctx.services.tenancy.getWorkspace(ctx.actor);
      return ctx.reads.workspace.findUniqueOrThrow({ ...query, where: { id: workspace.id } });
    },
  }),
);
