// The graph's one loader factory: createLoaders() runs once per request (context.ts) and holds every
// DataLoader of the request, for fields that cannot ride on a plugin-prisma selection (counts, the
// setup checklist, bindings named by subject id, effective access, ...). Each batches every parent
// of the operation into one query through the request's tenant-scoped reader, or one call of a
// module's batched reader, so a list of N parents costs the same as one. Add a loader here and read
// it in a type file as `ctx.loaders.<name>.load(key)`; nothing else in src/graphql holds loaders.
import DataLoader from "dataloader";
import type { RoleBinding, SdkManifest } from "../generated/sqlite/client";
import { assertCanRead, type Actor } from "../shared/actor";
import { badRequest } from "../shared/errors";
import type { PageRequest } from "../shared/pagination";
import type { TenantReader } from "../storage";
import { CLIENT_STATUSES, type ClientStatus } from "../modules/clients";
import { ROLE_BINDING_LIST, type EffectiveAccessItem } from "../modules/rbac";
import { readSetupInputs, type SetupInputs } from "../modules/resource-servers";
import type { ApplicationEffectiveAccess, PostureStats } from "../modules/access-views";
import { effectiveAccessOnApplications } from "../modules/access-views/effective-access-many";
import type { GraphServices } from "./context";

export interface LoaderDeps {
  reads: TenantReader;
  actor: Actor;
  services: GraphServices;
}

export interface ClientCounts {
  total: number;
  pending: number;
  approved: number;
  revoked: number;
}

function clientCountsLoader({ reads }: LoaderDeps) {
  return new DataLoader<string, ClientCounts>(async (resourceServerIds) => {
    // Pre-registered clients by their own status, connected dcr/cimd clients by their connection's.
    const where = { resourceServerId: { in: [...resourceServerIds] } };
    const [clients, connections] = await Promise.all([
      reads.client.groupBy({ by: ["resourceServerId", "status"], where, _count: { _all: true } }),
      reads.connection.groupBy({ by: ["resourceServerId", "status"], where, _count: { _all: true } }),
    ]);
    const rows = [...clients, ...connections];
    const byServer = new Map<string, ClientCounts>(resourceServerIds.map((id) => [id, { total: 0, pending: 0, approved: 0, revoked: 0 }]));
    for (const row of rows) {
      const counts = row.resourceServerId ? byServer.get(row.resourceServerId) : undefined;
      if (!counts) continue;
      counts.total += row._count._all;
      // (A disabled client is an agent's, bound to no server: never counted here.)
      const status = row.status as Exclude<ClientStatus, "disabled">;
      if ((CLIENT_STATUSES as readonly string[]).includes(status) && status in counts) counts[status] += row._count._all;
    }
    return resourceServerIds.map((id) => byServer.get(id)!);
  });
}

function manifestsLoader({ reads }: LoaderDeps) {
  return new DataLoader<string, SdkManifest | null>(async (resourceServerIds) => {
    const rows = await reads.sdkManifest.findMany({ where: { resourceServerId: { in: [...resourceServerIds] } } });
    return resourceServerIds.map((id) => rows.find((r) => r.resourceServerId === id) ?? null);
  });
}

/**
 * One page of the bindings of users or groups, oldest first. Parents asking for the same page share
 * one loader (and so one query); the keyset condition applies to every subject alike, and the page
 * size is cut per subject (in the query too when the batch has one subject). The parents were read
 * through the services; the role check is repeated here all the same.
 */
function roleBindingsLoaders({ reads, actor }: LoaderDeps) {
  const byPage = new Map<string, DataLoader<string, RoleBinding[]>>();
  return (subjectType: "user" | "group", page: PageRequest) => {
    const key = JSON.stringify([subjectType, page.limit, page.cursor ?? null]);
    let loader = byPage.get(key);
    if (!loader) {
      loader = new DataLoader<string, RoleBinding[]>(async (subjectIds) => {
        assertCanRead(actor);
        const rows = await reads.roleBinding.findMany({
          where: ROLE_BINDING_LIST.where({ subjectType, subjectId: { in: [...subjectIds] } }, page.cursor),
          orderBy: ROLE_BINDING_LIST.orderBy,
          ...(subjectIds.length === 1 ? { take: page.limit } : {}),
        });
        return subjectIds.map((id) => rows.filter((b) => b.subjectId === id).slice(0, page.limit));
      });
      byPage.set(key, loader);
    }
    return loader;
  };
}

/**
 * The per-application access views (tool exposure, scopes, assignments, end-user access, effective
 * access: src/graphql/types/application-access.ts) are pages of one application's rows, computed
 * by the read models one application at a time; batching them across applications would mean a
 * second copy of their SQL (docs/decisions/0050). So they are offered on ONE application per
 * operation: every parent asking the same field with the same arguments shares one loader, and a
 * batch of more than one application is refused (BAD_USER_INPUT) instead of costing a round of
 * queries per application. The role is checked first, so a member still gets FORBIDDEN.
 */
function singleApplicationLoaders({ actor }: LoaderDeps) {
  const byField = new Map<string, DataLoader<string, unknown>>();
  return <T>(field: string, args: unknown, read: (applicationId: string) => Promise<T>): DataLoader<string, T> => {
    const key = JSON.stringify([field, args]);
    let loader = byField.get(key);
    if (!loader) {
      loader = new DataLoader<string, unknown>(async (ids) => {
        assertCanRead(actor);
        if (ids.length > 1) {
          const refusal = badRequest(`${field} is offered on one application per operation (${ids.length} asked): ask it on resourceServer(id)`);
          return ids.map(() => refusal);
        }
        return [await read(ids[0]!)];
      });
      byField.set(key, loader);
    }
    return loader as DataLoader<string, T>;
  };
}

/** `applicationEffectiveAccess(userId).load(applicationId)`: one user's effective access, every application of the operation at once. */
function applicationEffectiveAccessLoaders({ reads, actor, services }: LoaderDeps) {
  const byUser = new Map<string, DataLoader<string, ApplicationEffectiveAccess | null>>();
  const ports = { resolver: services.rbac.resolver, policy: (id: string) => services.lifecycle.policies.get(id) };
  return (userId: string) => {
    let loader = byUser.get(userId);
    if (!loader) {
      loader = new DataLoader((applicationIds) => effectiveAccessOnApplications(reads, ports, actor, userId, applicationIds));
      byUser.set(userId, loader);
    }
    return loader;
  };
}

export function createLoaders(deps: LoaderDeps) {
  const { actor, reads, services } = deps;
  return {
    /** Clients per resource server by status (the Applications list shows them). */
    clientCounts: clientCountsLoader(deps),
    /** The setup checklist's inputs per resource server (tools with their scope ids, scope count, access policy). */
    setupInputs: new DataLoader<string, SetupInputs>((ids) => readSetupInputs(reads, actor.tenantId, ids)),
    /** The runtime's last manifest push per resource server (null: none yet). */
    manifests: manifestsLoader(deps),
    /** `roleBindings(subjectType, page).load(subjectId)`: one page of a user's or a group's own bindings. */
    roleBindings: roleBindingsLoaders(deps),
    /** Access posture per application (tools, drift, clients, users with access, ...): the same batched queries as GET .../posture-summary. */
    posture: new DataLoader<string, PostureStats>(async (ids) => {
      const byId = await services.accessViews.readModels.postureFor(actor, ids);
      return ids.map((id) => byId.get(id)!);
    }),
    /** Every binding affecting each user now, through the same service as GET .../effective-access. */
    effectiveAccess: new DataLoader<string, EffectiveAccessItem[]>(async (userIds) => {
      const byUser = await services.rbac.effectiveAccess.forUsers(actor, userIds);
      return userIds.map((id) => byUser.get(id) ?? []);
    }),
    applicationEffectiveAccess: applicationEffectiveAccessLoaders(deps),
    /** `singleApplication(field, args, read).load(applicationId)`: a per-application access view, one application per operation. */
    singleApplication: singleApplicationLoaders(deps),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
