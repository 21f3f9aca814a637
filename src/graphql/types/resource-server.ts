// ResourceServer: a protected MCP server of the workspace, its endpoints, lifecycle state, the two
// derived Applications badges, its clients (nested, through plugin-prisma selections) and client
// counts (computed, through a per-request DataLoader).
import { CLIENT_LIST } from "../../modules/clients";
import { REGISTRATION_MODES, RESOURCE_SERVER_LIST, SCAN_STATUSES, SERVER_STATES, badgesOf, endpointsFor } from "../../modules/resource-servers";
import { DomainError } from "../../shared/errors";
import { builder } from "../builder";
import type { ClientCounts } from "../loaders";
import { idSchema, parseArg } from "../validation";
import {
  ClientKindEnum,
  ClientStatusEnum,
  RegistrationModeEnum,
  ResourceServerStateEnum,
  ScanStatusEnum,
  enumValue,
  stringList,
} from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

const Endpoints = builder.objectRef<ReturnType<typeof endpointsFor>>("ResourceServerEndpoints").implement({
  description: "What a resource server's runtime (or its SDK) needs to validate tokens.",
  fields: (t) => ({
    issuerUrl: t.exposeString("issuer_url"),
    jwksUri: t.exposeString("jwks_uri"),
    introspectionEndpoint: t.exposeString("introspection_endpoint"),
    resourceUrl: t.exposeString("resource_url", { description: "The `aud` of every token minted for this server (RFC 8707)." }),
    scopeMatrixUrl: t.exposeString("scope_matrix_url"),
    manifestUrl: t.exposeString("manifest_url"),
  }),
});

const Badges = builder.objectRef<{ discovered: boolean; not_launched: boolean }>("ResourceServerBadges").implement({
  description: "Derived on every read, never stored (spec: Applications screen).",
  fields: (t) => ({
    discovered: t.exposeBoolean("discovered", { description: "state is needs_setup and scan_generation > 0" }),
    notLaunched: t.exposeBoolean("not_launched", { description: "state is not ready" }),
  }),
});

const ClientCountsRef = builder.objectRef<ClientCounts>("ClientCounts").implement({
  fields: (t) => ({
    total: t.exposeInt("total"),
    pending: t.exposeInt("pending"),
    approved: t.exposeInt("approved"),
    revoked: t.exposeInt("revoked"),
  }),
});

export const ResourceServerRef = builder.prismaObject("ResourceServer", {
  // Select mode: only requested columns are read, so the introspection secret hash never is.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("tenantId"),
    name: t.exposeString("name"),
    publicBaseUrl: t.exposeString("publicBaseUrl"),
    protectedBasePath: t.exposeString("protectedBasePath"),
    resourceUrl: t.exposeString("resourceUrl"),
    endpoints: t.field({
      type: Endpoints,
      select: { resourceUrl: true },
      resolve: (rs, _args, ctx) => endpointsFor(ctx.services.config.publicUrl, rs),
    }),
    validationMode: t.exposeString("validationMode"),
    scopesSupported: t.stringList({ select: { scopesSupported: true }, resolve: (rs) => stringList(rs.scopesSupported) }),
    registrationModes: t.field({
      type: [RegistrationModeEnum],
      select: { registrationModes: true },
      resolve: (rs) => stringList(rs.registrationModes).map((m) => enumValue(REGISTRATION_MODES, m, "registration mode")),
    }),
    state: t.field({
      type: ResourceServerStateEnum,
      select: { state: true },
      resolve: (rs) => enumValue(SERVER_STATES, rs.state, "resource server state"),
    }),
    scanGeneration: t.exposeInt("scanGeneration"),
    lastSuccessfulGeneration: t.exposeInt("lastSuccessfulGeneration"),
    lastScanStatus: t.field({
      type: ScanStatusEnum,
      nullable: true,
      select: { lastScanStatus: true },
      resolve: (rs) => (rs.lastScanStatus === null ? null : enumValue(SCAN_STATUSES, rs.lastScanStatus, "scan status")),
    }),
    lastScanError: t.exposeString("lastScanError", { nullable: true }),
    setupCompletedAt: t.expose("setupCompletedAt", { type: "DateTime", nullable: true }),
    setupCompletedBy: t.exposeID("setupCompletedBy", { nullable: true }),
    badges: t.field({ type: Badges, select: { state: true, scanGeneration: true }, resolve: (rs) => badgesOf(rs) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { createdAt: true }, resolve: (rs) => RESOURCE_SERVER_LIST.cursorAfter(rs) }),
    clients: t.relation("clients", {
      description: "OAuth clients registered against this server, oldest first (one page: first, after).",
      args: {
        status: t.arg({ type: ClientStatusEnum, required: false }),
        kind: t.arg({ type: ClientKindEnum, required: false }),
        ...pageArgs,
      },
      // The parent is already the caller's; the reader ANDs the workspace into this nested list
      // too, so a client row can never be read through another workspace's server.
      query: (args) => {
        const page = pageOf(CLIENT_LIST, args);
        return {
          where: CLIENT_LIST.where({ ...(args.status ? { status: args.status } : {}), ...(args.kind ? { kind: args.kind } : {}) }, page.cursor),
          orderBy: CLIENT_LIST.orderBy,
          take: page.limit,
        };
      },
    }),
    clientCounts: t.field({
      type: ClientCountsRef,
      description: "Clients of this server by status: pre-registered ones and connected dcr/cimd ones (batched for the whole list).",
      resolve: (rs, _args, ctx) => ctx.loaders.clientCounts.load(rs.id),
    }),
  }),
});

/** Puts rows in the order of `ids` (the service's order) and drops ids that vanished in between. */
function inOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

// Root fields: the service decides what the actor may see (role check, workspace scope, soft
// delete, order); a second read by those ids loads exactly the operation's selection, nested
// relations included, in one round. Services return wire views, not rows, which is why the
// selection cannot ride on the service's own query.
builder.queryFields((t) => ({
  resourceServers: t.prismaField({
    type: ["ResourceServer"],
    description: "The workspace's resource servers (not deleted), oldest first (one page: first, after).",
    args: { ...pageArgs },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query }; // read up front: the early return below is not a forgotten query
      const ids = (await ctx.services.resourceServers.list(ctx.actor, pageOf(RESOURCE_SERVER_LIST, args))).items.map((rs) => rs.id);
      if (ids.length === 0) return [];
      const rows = await ctx.reads.resourceServer.findMany({ ...selection, where: { id: { in: ids }, deletedAt: null } });
      return inOrder(ids, rows);
    },
  }),
  resourceServer: t.prismaField({
    type: "ResourceServer",
    nullable: true,
    description: "One resource server of the workspace; null when the id is unknown, deleted or another workspace's.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const selection = { ...query }; // read up front: the early returns below are not a forgotten query
      const id = parseArg(idSchema, args.id, "id");
      try {
        await ctx.services.resourceServers.get(ctx.actor, id);
      } catch (e) {
        if (e instanceof DomainError && e.code === "not_found") return null;
        throw e;
      }
      return ctx.reads.resourceServer.findFirst({ ...selection, where: { id, deletedAt: null } });
    },
  }),
}));
