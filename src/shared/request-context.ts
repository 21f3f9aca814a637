// Who is acting, from where, in which request: the context the audit trail records with every
// event (docs/decisions/0038-audit-trail.md). It travels in an AsyncLocalStorage rather than as
// arguments, because the event is written by the unit of work (src/storage/unit-of-work.ts), far
// below the services, which must not have to pass it down for nothing to be forgotten.
//
// Set once per request by the request-context middleware (src/rest/request-context.ts: request id
// and client address), completed by whoever authenticates the caller (admin JWT, GraphQL context,
// runtime Basic auth), and by the CLI for its commands. The OAuth hot paths (token, introspection)
// are mounted before the middleware and never enter a context: they write no event per request.
// Outside any context (timers, background jobs) the actor is the system.
import { AsyncLocalStorage } from "node:async_hooks";

export const ACTOR_TYPES = ["user", "client", "resource_server", "cli", "system", "anonymous"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface AuditActor {
  type: ActorType;
  /** A user id, an OAuth client_id, a resource server id, the operator's OS user name; null for system/anonymous. */
  id: string | null;
}

export interface RequestContext {
  requestId?: string;
  /** The client address (req.ip, which honours TOOLGATE_TRUST_PROXY), or "local" for the CLI. */
  address?: string;
  actor?: AuditActor;
  /** The workspace the actor acts in (an admin token's), when known. */
  workspaceId?: string;
}

/**
 * ONE AsyncLocalStorage for everything the process carries along an async flow: the request
 * context and the unit of work (src/storage/unit-of-work.ts). On Node 20 every enabled
 * AsyncLocalStorage adds work to every promise of every request, hot paths included, so the two
 * share one store instead of having one each.
 */
export interface Frame {
  request?: RequestContext;
  /** The current unit of work (opaque here; src/storage/unit-of-work.ts). */
  unitOfWork?: unknown;
}

const frames = new AsyncLocalStorage<Frame>();

/** The current frame's unit of work (src/storage/unit-of-work.ts only). */
export function currentUnitOfWork<T>(): T | undefined {
  return frames.getStore()?.unitOfWork as T | undefined;
}

/** Runs `fn` inside unit of work `uow`, keeping the request context (src/storage/unit-of-work.ts only). */
export function runInUnitOfWork<R>(uow: unknown, fn: () => R): R {
  return frames.run({ request: frames.getStore()?.request, unitOfWork: uow }, fn);
}

export const SYSTEM_ACTOR: AuditActor = Object.freeze({ type: "system", id: null });
export const ANONYMOUS_ACTOR: AuditActor = Object.freeze({ type: "anonymous", id: null });

/** Runs `fn` with `context` as the current request context. */
export function runInContext<T>(context: RequestContext, fn: () => T): T {
  return frames.run({ request: context }, fn);
}

/** The current request context, or undefined outside any (a timer, a background job). */
export function currentContext(): RequestContext | undefined {
  return frames.getStore()?.request;
}

/** Names the authenticated caller of the current request (no effect outside a request). */
export function setContextActor(actor: AuditActor, workspaceId?: string): void {
  const context = frames.getStore()?.request;
  if (!context) return;
  context.actor = actor;
  if (workspaceId !== undefined) context.workspaceId = workspaceId;
}

/** The actor of the current context: the authenticated caller, anonymous in an unauthenticated request, else the system. */
export function currentActor(): AuditActor {
  const context = frames.getStore()?.request;
  if (!context) return SYSTEM_ACTOR;
  return context.actor ?? ANONYMOUS_ACTOR;
}
