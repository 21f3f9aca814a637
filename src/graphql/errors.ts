// GraphQL errors carry `extensions.code` (docs/decisions/0013-error-wire-shapes.md). Services throw DomainError; this
// file is the one place that turns them into GraphQL errors, so REST and GraphQL report the same
// failure from the same throw. Anything that is not a DomainError or a deliberate GraphQLError is
// unexpected: the client gets "Unexpected error." and the detail goes to the log with the
// request id, never to the response.
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { DomainError, type DomainErrorCode } from "../shared/errors";
import type { Logger } from "../shared/logger";

export const GRAPHQL_CODES: Record<DomainErrorCode, string> = {
  bad_request: "BAD_USER_INPUT",
  unauthenticated: "UNAUTHENTICATED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  too_many_requests: "RATE_LIMITED",
  upstream_failed: "UPSTREAM_FAILED",
  unavailable: "UNAVAILABLE",
};

export const UNEXPECTED_MESSAGE = "Unexpected error.";

export interface ErrorOptions {
  /** Sets the HTTP status of the whole response (only for errors raised before execution). */
  httpStatus?: number;
  headers?: Record<string, string>;
}

/** A GraphQL error for a domain failure. Details (e.g. `failed`) become extensions, as in REST bodies. */
export function domainError(e: DomainError, opts: ErrorOptions = {}, at?: GraphQLError): GraphQLError {
  return new GraphQLError(e.message, {
    nodes: at?.nodes,
    source: at?.source,
    positions: at?.positions,
    path: at?.path,
    extensions: {
      ...(e.details ?? {}),
      code: GRAPHQL_CODES[e.code],
      ...(opts.httpStatus ? { http: { status: opts.httpStatus, headers: opts.headers } } : {}),
    },
  });
}

/** A request-level error with a code and an HTTP status (authentication happens before execution). */
export function requestError(code: string, message: string, opts: ErrorOptions = {}): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, ...(opts.httpStatus ? { http: { status: opts.httpStatus, headers: opts.headers } } : {}) },
  });
}

function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof GraphQLError;
}

/** True for errors raised on purpose by our code or by graphql-js itself (parse/validation). */
function isDeliberate(e: GraphQLError): boolean {
  return e.originalError === undefined || e.originalError === null || isGraphQLError(e.originalError);
}

/**
 * Maps one error of an execution result. Returns the error to send and whether it was unexpected
 * (so the caller logs it).
 */
export function mapError(error: unknown): { error: GraphQLError; unexpected: boolean } {
  const at = isGraphQLError(error) ? error : undefined;
  const original = at ? at.originalError : error;
  if (original instanceof DomainError) return { error: domainError(original, {}, at), unexpected: false };
  if (at && isDeliberate(at)) return { error: at, unexpected: false };
  return {
    error: new GraphQLError(UNEXPECTED_MESSAGE, {
      nodes: at?.nodes,
      source: at?.source,
      positions: at?.positions,
      path: at?.path,
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    }),
    unexpected: true,
  };
}

/**
 * Yoga's `maskedErrors.maskError`: the fallback for errors outside execution (e.g. in the
 * context factory). Execution errors are already mapped by useDomainErrors with the request id.
 */
export function maskError(error: unknown): Error {
  return mapError(error).error;
}

/**
 * Maps execution errors while the request context (and so the request id) is at hand. It runs
 * before Yoga's own masking (user plugins come first), which then passes our errors through.
 */
export function useDomainErrors(logger: Logger): Plugin<{ requestId?: string }> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in Object(result)) return; // no subscriptions or @defer here
          const single = result as { errors?: readonly GraphQLError[] };
          if (!single.errors?.length) return;
          const requestId = (args.contextValue as { requestId?: string }).requestId;
          const errors = single.errors.map((e) => {
            const mapped = mapError(e);
            if (mapped.unexpected) logger.error({ err: e.originalError ?? e, requestId, path: e.path?.join(".") }, "graphql resolver failed");
            return mapped.error;
          });
          setResult({ ...(result as object), errors });
        },
      };
    },
  };
}
