// The per-request GraphQL context: who is calling (the tenancy module's AdminAuthenticator, as for
// the admin REST routes), the services, the request id and fresh DataLoaders.
// Authentication fails the whole request before execution, with the REST status and message and
// a GraphQL `extensions.code`; role checks stay in the services (per field, FORBIDDEN).
import type { Request, Response } from "express";
import type { YogaInitialContext } from "graphql-yoga";
import type { Services } from "../app";
import type { Actor } from "../shared/actor";
import { DomainError } from "../shared/errors";
import { AdminAuthError } from "../modules/tenancy";
import { domainError } from "./errors";
import { createLoaders, type Loaders } from "./loaders";

export interface GraphQLContext {
  services: Services;
  actor: Actor;
  requestId: string;
  /** Created per request, so nothing cached leaks between callers or outlives a write. */
  loaders: Loaders;
}

/** What Express hands Yoga as the server context (Yoga is mounted as Express middleware). */
export interface ServerContext {
  req: Request;
  res: Response;
}

/** The tenancy module's admin authentication, its refusals as request errors with the REST status. */
export async function authenticate(services: Services, authorization: string | null): Promise<Actor> {
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
  return async (initial: YogaInitialContext & ServerContext): Promise<GraphQLContext> => {
    const actor = await authenticate(services, initial.request.headers.get("authorization"));
    return {
      services,
      actor,
      // src/rest/request-log.ts set it (and echoes it as X-Request-Id).
      requestId: String(initial.res?.locals?.requestId ?? ""),
      loaders: createLoaders(services.db, actor),
    };
  };
}
