// Client: an OAuth client of the workspace (dcr, cimd or pre-registered). The secret hash is
// never selected, let alone exposed: the secret is shown once, in preRegisterClient's payload.
import { builder } from "../builder";
import { CLIENT_KINDS, CLIENT_LIST, CLIENT_STATUSES } from "../../modules/clients";
import { REGISTRATION_MODES } from "../../modules/resource-servers";
import { ClientKindEnum, ClientStatusEnum, RegistrationModeEnum, enumValue, stringList } from "./enums";
import { CURSOR_DESCRIPTION } from "./pagination";

export const ClientRef = builder.prismaObject("Client", {
  // Select mode: only requested columns are read (never secretHash; no field selects it).
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    clientId: t.exposeString("clientId", { description: "The OAuth client_id (opaque), or the metadata URL of a CIMD client." }),
    workspaceId: t.exposeID("tenantId", { nullable: true, description: "null for dcr and cimd clients: they belong to no workspace and reach servers through connections." }),
    resourceServerId: t.exposeID("resourceServerId", { nullable: true }),
    clientName: t.exposeString("clientName"),
    description: t.exposeString("description", { nullable: true }),
    kind: t.field({ type: ClientKindEnum, select: { kind: true }, resolve: (c) => enumValue(CLIENT_KINDS, c.kind, "client kind") }),
    registrationMode: t.field({
      type: RegistrationModeEnum,
      select: { registrationMode: true },
      resolve: (c) => enumValue(REGISTRATION_MODES, c.registrationMode, "registration mode"),
    }),
    status: t.field({ type: ClientStatusEnum, select: { status: true }, resolve: (c) => enumValue(CLIENT_STATUSES, c.status, "client status") }),
    tokenEndpointAuthMethod: t.exposeString("tokenEndpointAuthMethod"),
    redirectUris: t.stringList({ select: { redirectUris: true }, resolve: (c) => stringList(c.redirectUris) }),
    stagedRedirectUris: t.stringList({
      nullable: true,
      description: "CIMD redirect-URI changes waiting for an administrator's approval.",
      select: { stagedRedirectUris: true },
      resolve: (c) => (c.stagedRedirectUris === null ? null : stringList(c.stagedRedirectUris)),
    }),
    grantTypes: t.stringList({ select: { grantTypes: true }, resolve: (c) => stringList(c.grantTypes) }),
    allowedScopes: t.stringList({ select: { allowedScopes: true }, resolve: (c) => stringList(c.allowedScopes) }),
    tokenLifetime: t.exposeInt("tokenLifetime", { description: "Access-token lifetime in seconds." }),
    metadataUrl: t.exposeString("metadataUrl", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: "Last token issued to this client (batched, may lag slightly)." }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { createdAt: true }, resolve: (c) => CLIENT_LIST.cursorAfter(c) }),
  }),
});
