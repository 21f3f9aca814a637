// Upstream identity providers of the workspace (docs/federation.md): the same service as
// /svc/oocmgr/providers (same checks, same discovery, same audit), so both refuse the same input
// the same way. The client secret is write-only: the graph says only whether one is set.
import { PROVIDER_LIST, createProviderSchema, updateProviderSchema, type ProviderView } from "../../modules/identity-providers";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { nullIfNotFound } from "./people-support";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

const ClaimMappingRef = builder.objectRef<ProviderView["claim_mapping"]>("IdentityProviderClaimMapping").implement({
  fields: (t) => ({ email: t.exposeString("email"), name: t.exposeString("name"), groups: t.exposeString("groups") }),
});

const GroupSyncRef = builder.objectRef<ProviderView["group_sync"][number]>("IdentityProviderGroupSync").implement({
  fields: (t) => ({
    upstream: t.exposeString("upstream", { description: "The group name the provider sends in the groups claim." }),
    groupId: t.exposeID("group_id", { description: "The Toolgate group it maps to." }),
  }),
});

export const IdentityProviderRef = builder.objectRef<ProviderView>("IdentityProvider").implement({
  description: "An upstream OpenID provider people of the workspace sign in through.",
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspace_id"),
    name: t.exposeString("name"),
    issuer: t.exposeString("issuer"),
    clientId: t.exposeString("client_id"),
    clientSecretSet: t.exposeBoolean("client_secret_set", { description: "Whether a client secret is stored (it is never shown)." }),
    tokenEndpointAuthMethod: t.exposeString("token_endpoint_auth_method", { description: "client_secret_basic (a public client when no secret is set) or private_key_jwt." }),
    clientJwksUri: t.exposeString("client_jwks_uri", { nullable: true, description: "private_key_jwt: register this at the provider as the client's jwks_uri (Toolgate's JWKS)." }),
    scopes: t.exposeString("scopes"),
    enabled: t.exposeBoolean("enabled"),
    emailDomains: t.exposeStringList("email_domains"),
    claimMapping: t.field({ type: ClaimMappingRef, resolve: (p) => p.claim_mapping }),
    jitProvisioning: t.exposeBoolean("jit_provisioning"),
    defaultRoleId: t.exposeID("default_role_id", { nullable: true }),
    trustEmail: t.exposeBoolean("trust_email"),
    groupSync: t.field({ type: [GroupSyncRef], resolve: (p) => p.group_sync }),
    allowedFor: t.exposeStringList("allowed_for"),
    redirectUri: t.exposeString("redirect_uri", { description: "Register this at the provider as the client's redirect URI." }),
    authorizationEndpoint: t.exposeString("authorization_endpoint"),
    tokenEndpoint: t.exposeString("token_endpoint"),
    jwksUri: t.exposeString("jwks_uri"),
    discoveredAt: t.field({ type: "DateTime", resolve: (p) => new Date(p.discovered_at) }),
    createdAt: t.field({ type: "DateTime", resolve: (p) => new Date(p.created_at) }),
    updatedAt: t.field({ type: "DateTime", resolve: (p) => new Date(p.updated_at) }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, resolve: (p) => PROVIDER_LIST.cursorAfter({ name: p.name, id: p.id }) }),
  }),
});

const ClaimMappingInput = builder.inputType("IdentityProviderClaimMappingInput", {
  fields: (t) => ({ email: t.string({ required: false }), name: t.string({ required: false }), groups: t.string({ required: false }) }),
});
const GroupSyncInput = builder.inputType("IdentityProviderGroupSyncInput", {
  fields: (t) => ({ upstream: t.string({ required: true }), groupId: t.id({ required: true }) }),
});

const providerFields = (t: any, required: boolean) => ({
  name: t.string({ required }),
  issuer: t.string({ required }),
  clientId: t.string({ required }),
  clientSecret: t.string({ required: false, description: "Write-only; sets or rotates the secret." }),
  tokenEndpointAuthMethod: t.string({ required: false, description: "client_secret_basic (default) or private_key_jwt (no client secret)." }),
  scopes: t.string({ required: false }),
  enabled: t.boolean({ required: false }),
  emailDomains: t.stringList({ required: false }),
  claimMapping: t.field({ type: ClaimMappingInput, required: false }),
  jitProvisioning: t.boolean({ required: false }),
  defaultRoleId: t.id({ required: false }),
  trustEmail: t.boolean({ required: false }),
  groupSync: t.field({ type: [GroupSyncInput], required: false }),
  allowedFor: t.stringList({ required: false }),
});

const CreateIdentityProviderInput = builder.inputType("CreateIdentityProviderInput", { fields: (t) => providerFields(t, true) });
const UpdateIdentityProviderInput = builder.inputType("UpdateIdentityProviderInput", { fields: (t) => providerFields(t, false) });

/** GraphQL input -> the REST body shape the service's schemas parse. */
function wireOf(input: Record<string, unknown>): Record<string, unknown> {
  const wire = toWire(input);
  if (Array.isArray(input.groupSync)) wire.group_sync = (input.groupSync as Array<{ upstream: string; groupId: string }>).map((g) => ({ upstream: g.upstream, group_id: g.groupId }));
  if (input.claimMapping) wire.claim_mapping = toWire(input.claimMapping as Record<string, unknown>);
  return wire;
}

builder.queryFields((t) => ({
  identityProviders: t.field({
    type: [IdentityProviderRef],
    description: "The workspace's upstream OpenID providers, by name (one page: first, after).",
    args: { ...pageArgs },
    resolve: async (_root, args, ctx) => (await ctx.services.identityProviders.list(ctx.actor, pageOf(PROVIDER_LIST, args))).items,
  }),
  identityProvider: t.field({
    type: IdentityProviderRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(() => ctx.services.identityProviders.get(ctx.actor, parseArg(idSchema, args.id, "id"))),
  }),
}));

builder.mutationFields((t) => ({
  createIdentityProvider: t.field({
    type: IdentityProviderRef,
    description: "Fetches and checks the issuer's discovery document, then stores the provider (the secret sealed).",
    args: { input: t.arg({ type: CreateIdentityProviderInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.identityProviders.create(ctx.actor, parseArg(createProviderSchema, wireOf(args.input as never), "input")),
  }),
  updateIdentityProvider: t.field({
    type: IdentityProviderRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateIdentityProviderInput, required: true }) },
    resolve: (_root, args, ctx) =>
      ctx.services.identityProviders.update(ctx.actor, parseArg(idSchema, args.id, "id"), parseArg(updateProviderSchema, wireOf(args.input as never), "input")),
  }),
  deleteIdentityProvider: t.boolean({
    description: "Deletes the provider and its links; the people keep their accounts.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.identityProviders.remove(ctx.actor, parseArg(idSchema, args.id, "id"));
      return true;
    },
  }),
}));
