// The per-request GraphQL context: who is calling (the same admin JWT and the same checks as the
// admin REST routes, src/rest/admin-auth.ts), the services, the request id and fresh DataLoaders.
// Authentication fails the whole request before execution, with the REST status and message and
// a GraphQL `extensions.code`; role checks stay in the services (per field, FORBIDDEN).
import type { Request, Response } from "express";
import type { YogaInitialContext } from "graphql-yoga";
import type { Services } from "../app";
import type { Actor } from "../shared/actor";
import { DomainError } from "../shared/errors";
import { bearerToken } from "../rest/admin-auth";
import { domainError, requestError } from "./errors";
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

const BEARER_CHALLENGE = 'Bearer realm="toolgate-admin"';

export async function authenticate(services: Services, authorization: string | null): Promise<Actor> {
  const token = bearerToken(authorization ?? undefined);
  if (!token) {
    throw requestError("UNAUTHENTICATED", "missing bearer token", { httpStatus: 401, headers: { "WWW-Authenticate": BEARER_CHALLENGE } });
  }
  const claims = await services.jwt.verifyAdminToken(token);
  if (!claims) {
    throw requestError("UNAUTHENTICATED", "invalid or expired token", {
      httpStatus: 401,
      headers: { "WWW-Authenticate": `${BEARER_CHALLENGE}, error="invalid_token"` },
    });
  }
  const tenantId = claims.workspace_id ?? claims.tenant_id;
  if (typeof tenantId !== "string" || tenantId === "") {
    throw requestError("UNAUTHENTICATED", "tenant_id required in JWT", { httpStatus: 401 });
  }
  try {
    return await services.tenancy.resolveActor(claims.sub, tenantId);
  } catch (e) {
    if (e instanceof DomainError) throw domainError(e, { httpStatus: e.status });
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
