// The per-request GraphQL context: who is calling (the tenancy module's AdminAuthenticator, as for
// the admin REST routes), the request id, the tenant-scoped reader every read of the graph goes
// through, the request's DataLoaders (built from that reader) and the services, without the
// database client: the graph reads through `reads` and writes through the services only.
// Authentication fails the whole request before execution, with the REST status and message and
// a GraphQL `extensions.code`; role checks stay in the services (per field, FORBIDDEN).
import type { Request, Response } from "express";
import type { YogaInitialContext } from "graphql-yoga";
import type { Services } from "../app";
import type { Actor } from "../shared/actor";
import { tenantScopedReader, type TenantReader } from "../storage";
import { DomainError } from "../shared/errors";
import { AdminAuthError } from "../modules/tenancy";
import { domainError } from "./errors";
import { createLoaders, type Loaders } from "./loaders";
import { setContextActor } from "../shared/request-context";

/** The services as the graph sees them: no `db` (reads go through `reads`, writes through the services). */
export type GraphServices = Omit<Services, "db">;

export interface GraphQLContext {
  actor: Actor;
  requestId: string;
  /** Reads only, of the caller's workspace only (src/storage/tenant-scope.ts); plugin-prisma reads through it too. */
  reads: TenantReader;
  /** Created per request, so nothing cached leaks between callers or outlives a write. */
  loaders: Loaders;
  services: GraphServices;
}

/** What Express hands Yoga as the server context (Yoga is mounted as Express middleware). */
export interface ServerContext {
  req: Request;
  res: Response;
}

/** The tenancy module's admin authentication, its refusals as request errors with the REST status. */
export async function authenticate(services: Pick<Services, "adminAuth">, authorization: string | null): Promise<Actor> {
  try {
    return await services.adminAuth.authenticate(authorization);
  } catch (e) {
    if (e instanceof DomainError) {
      const headers = e instanceof AdminAuthError && e.challenge ? { "WWW-Authenticate": e.challenge } : undefined;
      throw domainError(e, { httpStatus: e.status, headers });
    }
    throw e;
  }
}

export function contextFactory(services: Services) {
  const { db, ...graphServices } = services;
  return async (initial: YogaInitialContext & ServerContext): Promise<GraphQLContext> => {
    const actor = await authenticate(services, initial.request.headers.get("authorization"));
    // The audit trail's actor for every mutation of this request (src/shared/request-context.ts).
    setContextActor({ type: "user", id: actor.userId }, actor.tenantId);
    const reads = tenantScopedReader(db, actor.tenantId);
    return {
      actor,
      // src/rest/request-log.ts set it (and echoes it as X-Request-Id).
      requestId: String(initial.res?.locals?.requestId ?? ""),
      reads,
      loaders: createLoaders({ reads, actor, services: graphServices }),
      services: graphServices,
    };
  };
}
