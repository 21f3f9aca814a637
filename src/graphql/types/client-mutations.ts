// Pre-registration of a client on a resource server (registration_mode "prereg"): the same
// service method as POST /svc/resource-servers/:id/clients. The secret is in the payload only.
import { createClientSchema } from "../../modules/clients";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { ClientKindEnum } from "./enums";

const PreRegisterClientInput = builder.inputType("PreRegisterClientInput", {
  fields: (t) => ({
    clientName: t.string({ required: true }),
    redirectUris: t.stringList({ required: true, description: "https, or http on a loopback host; may be empty for machine-to-machine clients." }),
    kind: t.field({ type: ClientKindEnum, required: false, description: "Defaults to m2m." }),
    description: t.string({ required: false }),
    grantTypes: t.stringList({ required: false, description: "Defaults by kind: client_credentials for m2m, authorization_code + refresh_token otherwise." }),
    allowedScopes: t.stringList({ required: false, description: "Scope ids of this resource server; defaults to none." }),
    tokenLifetime: t.int({ required: false, description: "Seconds, 300..86400; defaults to 3600." }),
    tokenEndpointAuthMethod: t.string({ required: false, description: "client_secret_basic (default), client_secret_post, or none (a public agent, human_app or cli client: no secret, PKCE)." }),
  }),
});

const PreRegisterClientPayload = builder.objectRef<{ clientId: string; secret: string | null }>("PreRegisterClientPayload").implement({
  fields: (t) => ({
    clientId: t.exposeString("clientId", { description: "The OAuth client_id." }),
    clientSecret: t.exposeString("secret", { nullable: true, description: "Shown only here; store it now. A lost secret must be replaced. null for a public client." }),
    client: t.prismaField({
      type: "Client",
      // Read with the operation's selection; the service has just written it in this workspace.
      resolve: (query, parent, _args, ctx) =>
        ctx.reads.client.findFirstOrThrow({ ...query, where: { clientId: parent.clientId } }),
    }),
  }),
});

builder.mutationField("preRegisterClient", (t) =>
  t.field({
    type: PreRegisterClientPayload,
    args: {
      resourceServerId: t.arg.id({ required: true }),
      input: t.arg({ type: PreRegisterClientInput, required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const resourceServerId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const input = parseArg(createClientSchema, toWire(args.input), "input");
      const created = await ctx.services.clients.create(ctx.actor, resourceServerId, input);
      return { clientId: created.client_id, secret: created.client_secret ?? null };
    },
  }),
);
