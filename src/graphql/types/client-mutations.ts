// Mutations of a resource server's clients, each the same service method as its REST route:
//   preRegisterClient       POST /svc/resource-servers/:id/clients (the secret is in the payload only)
//   rotateClientSecret      POST .../clients/:client_id/rotate-secret (the new secret in the payload only)
//   approveClientRedirects  PUT  .../clients/:client_id/approve-redirects
import { clientIdParamSchema, createClientSchema, secretGraceSchema } from "../../modules/clients";
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
    clientSecret: t.exposeString("secret", { nullable: true, description: "Shown only here; store it now. A lost secret is replaced with rotateClientSecret. null for a public client." }),
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

const RotateClientSecretPayload = builder
  .objectRef<{ clientId: string; secret: string; rotatedAt: Date; previousSecretExpiresAt: Date | null }>("RotateClientSecretPayload")
  .implement({
    fields: (t) => ({
      clientSecret: t.exposeString("secret", { description: "The new secret, shown only here; store it now." }),
      rotatedAt: t.expose("rotatedAt", { type: "DateTime" }),
      previousSecretExpiresAt: t.expose("previousSecretExpiresAt", {
        type: "DateTime",
        nullable: true,
        description: "Until when the old secret is still accepted (graceSeconds); null: it was refused from the rotation on.",
      }),
    }),
  });

const ApproveClientRedirectsPayload = builder.objectRef<{ clientId: string; previousRedirectUris: string[] }>("ApproveClientRedirectsPayload").implement({
  fields: (t) => ({
    previousRedirectUris: t.exposeStringList("previousRedirectUris", { description: "The redirect URIs the approved staged list replaced." }),
  }),
});

// The client a payload names, read with the operation's selection (the service has just written it in this workspace).
for (const payload of [PreRegisterClientPayload, RotateClientSecretPayload, ApproveClientRedirectsPayload] as const) {
  builder.objectField(payload, "client", (t) =>
    t.prismaField({
      type: "Client",
      resolve: (query, parent, _args, ctx) => ctx.reads.client.findFirstOrThrow({ ...query, where: { clientId: parent.clientId } }),
    }),
  );
}

builder.mutationFields((t) => ({
  rotateClientSecret: t.field({
    type: RotateClientSecretPayload,
    args: {
      resourceServerId: t.arg.id({ required: true }),
      clientId: t.arg.string({ required: true }),
      graceSeconds: t.arg.int({ required: false, description: "0..86400: how long the old secret stays valid (default 0: refused at once)." }),
    },
    resolve: async (_root, args, ctx) => {
      const resourceServerId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const clientId = parseArg(clientIdParamSchema, args.clientId, "clientId");
      const graceSeconds = parseArg(secretGraceSchema, args.graceSeconds ?? undefined, "graceSeconds");
      const r = await ctx.services.clients.rotateSecret(ctx.actor, resourceServerId, clientId, { grace_seconds: graceSeconds });
      return {
        clientId: r.client_id,
        secret: r.client_secret,
        rotatedAt: new Date(r.rotated_at),
        previousSecretExpiresAt: r.previous_secret_expires_at === null ? null : new Date(r.previous_secret_expires_at),
      };
    },
  }),
  approveClientRedirects: t.field({
    type: ApproveClientRedirectsPayload,
    args: {
      resourceServerId: t.arg.id({ required: true }),
      clientId: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const resourceServerId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const clientId = parseArg(clientIdParamSchema, args.clientId, "clientId");
      const r = await ctx.services.clients.approveRedirects(ctx.actor, resourceServerId, clientId);
      return { clientId: r.client_id, previousRedirectUris: r.previous_redirect_uris };
    },
  }),
}));
