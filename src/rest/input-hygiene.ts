// Input the database cannot store must be refused as bad input (400), never reach it as a 500:
// PostgreSQL rejects NUL characters in text (SQLSTATE 22021), and deeply nested JSON overflows the
// stack of the code that serialises it. One walk over the parsed body and query, bounded in depth
// and size, before any route runs.
import type { RequestHandler } from "express";
import { badRequest } from "../shared/errors";

/** Nesting deeper than this is refused (free-form JSON such as input schemas stays far below it). */
export const MAX_JSON_DEPTH = 32;

/** A description of what is wrong with `value`, or null when it may be stored. */
export function unsafeInput(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? "must not contain NUL characters" : null;
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
  for (const [k, v] of Object.entries(value)) {
    if (k.includes("\u0000")) return "must not contain NUL characters";
    const problem = unsafeInput(v, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** Refuses a request whose body or query holds unstorable input (400, or invalid_request at /oauth). */
export const rejectUnsafeInput: RequestHandler = (req, _res, next) => {
  const problem = unsafeInput(req.body) ?? unsafeInput(req.query);
  if (problem) return next(badRequest(`request ${problem}`));
  next();
};
