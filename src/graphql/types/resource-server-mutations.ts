// Mutations of resource servers: registration (returns the introspection secret once) and secret
// rotation. Both call the same service methods as POST /svc/resource-servers and
// POST /svc/resource-servers/:id/rotate-introspection-secret.
import { createResourceServerSchema } from "../../modules/resource-servers";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { RegistrationModeEnum } from "./enums";

const RegisterResourceServerInput = builder.inputType("RegisterResourceServerInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    publicBaseUrl: t.string({ required: true, description: "Absolute http(s) URL, no query, fragment or credentials." }),
    protectedBasePath: t.string({ required: true, description: 'Path prefix starting with "/".' }),
    scopesSupported: t.stringList({ required: false, description: "Scope strings (RFC 6749 scope-tokens); each becomes a scope record." }),
    registrationModes: t.field({ type: [RegistrationModeEnum], required: false, description: "Defaults to all three." }),
  }),
});

/** Payload parents carry the id and the once-only secret; the server itself is loaded with the selection. */
interface SecretPayload {
  id: string;
  secret: string;
  at?: Date;
}

const RegisterPayload = builder.objectRef<SecretPayload>("RegisterResourceServerPayload").implement({
  fields: (t) => ({
    introspectionSecret: t.exposeString("secret", {
      description: "The Basic-auth password for rs_id:introspection_secret. Shown only here; store it now.",
    }),
  }),
});

const RotatePayload = builder.objectRef<SecretPayload>("RotateIntrospectionSecretPayload").implement({
  fields: (t) => ({
    introspectionSecret: t.exposeString("secret", { description: "The new secret, shown only here. The old one is refused already." }),
    rotatedAt: t.field({ type: "DateTime", resolve: (p) => p.at! }),
  }),
});

// The server a payload names, read with the operation's selection (the service has just written it).
for (const payload of [RegisterPayload, RotatePayload]) {
  builder.objectField(payload, "resourceServer", (t) =>
    t.prismaField({
      type: "ResourceServer",
      resolve: (query, parent, _args, ctx) =>
        ctx.reads.resourceServer.findFirstOrThrow({ ...query, where: { id: parent.id } }),
    }),
  );
}

builder.mutationFields((t) => ({
  registerResourceServer: t.field({
    type: RegisterPayload,
    args: { input: t.arg({ type: RegisterResourceServerInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const input = parseArg(createResourceServerSchema, toWire(args.input), "input");
      const created = await ctx.services.resourceServers.create(ctx.actor, input);
      return { id: created.id, secret: created.introspection_secret };
    },
  }),
  rotateIntrospectionSecret: t.field({
    type: RotatePayload,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const rotated = await ctx.services.resourceServers.rotateSecret(ctx.actor, parseArg(idSchema, args.id, "id"));
      return { id: rotated.id, secret: rotated.introspection_secret, at: new Date(rotated.rotated_at) };
    },
  }),
}));
