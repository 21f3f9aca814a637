// Input the database cannot store must be refused as bad input (400), never reach it as a 500 or
// be stored lossily: NUL characters, unpaired UTF-16 surrogates and absurdly deep JSON (the rule
// itself, shared with GraphQL, is src/shared/input-safety.ts). Where each part of a request is
// checked, before any route's handler reads it:
// - body and query: `rejectUnsafeInput`, one walk after the body parser (app.ts, and the routers
//   that parse their own bodies: OAuth forms, the authorization pages, the runtime manifest);
// - Basic credentials (OAuth client and resource-server authentication): the same middleware,
//   since their id is looked up in the database;
// - path parameters: Express parses them per route, so `parseWith` (src/rest/validation.ts)
//   checks the params every router hands it, and routes that read params without it call
//   `assertSafeInput(req.params)` (rest/runtime.ts);
// - GraphQL arguments: src/graphql/input-hygiene.ts (GraphQL error shape), so `/graphql` is left
//   out of this middleware.
import type { RequestHandler } from "express";
import { badRequest } from "../shared/errors";
import { MAX_JSON_DEPTH, UNSTORABLE_TEXT, describeUnsafeInput, findUnsafeInput, unsafeText, type UnsafeInput } from "../shared/input-safety";
import { basicCredentialsOf } from "./basic-auth";

/** The message for a body or query problem: unstorable text names the field (issue 9), depth the limit. */
function describeRequestProblem(found: UnsafeInput, where: "body" | "query"): string {
  if (found.kind === "depth") return `request nests deeper than ${MAX_JSON_DEPTH} levels`;
  return describeUnsafeInput(found, { whole: where });
}

/** Basic credentials whose id or secret cannot be stored (the id is looked up in the database). */
function unsafeBasicCredentials(req: Parameters<typeof basicCredentialsOf>[0]): boolean {
  if (!req.headers.authorization) return false;
  const creds = basicCredentialsOf(req);
  return creds !== undefined && (unsafeText(creds.id) !== null || unsafeText(creds.secret) !== null);
}

/** Refuses a request whose body, query or Basic credentials hold unstorable input (400, or invalid_request at /oauth). */
export const rejectUnsafeInput: RequestHandler = (req, _res, next) => {
  const body = findUnsafeInput(req.body);
  if (body) return next(badRequest(describeRequestProblem(body, "body")));
  // No query string, nothing to check (and no parse of one: Express 5 parses req.query per read).
  const query = req.url.includes("?") ? findUnsafeInput(req.query) : null;
  if (query) return next(badRequest(describeRequestProblem(query, "query")));
  if (unsafeBasicCredentials(req)) return next(badRequest(`authorization: ${UNSTORABLE_TEXT}`));
  next();
};

/**
 * `rejectUnsafeInput` for every path but those under `prefixes`, which check their input
 * themselves (app.ts: GraphQL answers in its own error shape, naming the argument).
 */
export function rejectUnsafeInputExcept(...prefixes: string[]): RequestHandler {
  const skipped = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  return (req, res, next) => (skipped(req.path) ? next() : rejectUnsafeInput(req, res, next));
}

/**
 * Throws a 400 naming the first field of `value` that cannot be stored, e.g. for path parameters
 * `{"error":"client_id: must not contain NUL characters or unpaired surrogates"}`; `whole` names
 * the value itself when the problem is at its root.
 */
export function assertSafeInput(value: unknown, whole = "path"): void {
  const found = findUnsafeInput(value);
  if (found) throw badRequest(describeUnsafeInput(found, { whole }));
}
