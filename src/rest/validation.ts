// zod at the boundary: every body, query and path parameter is parsed before a service runs.
// A failure is a 400 whose message names the field, e.g. {"error":"public_base_url: must be an http(s) URL"}.
import type { z } from "zod";
import { badRequest } from "../shared/errors";
import { assertSafeInput } from "./input-hygiene";

export function describeZodError(error: z.ZodError, where: InputLocation = "body", input?: unknown): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const field = i.path.length > 0 ? i.path.join(".") : where;
      if (i.code === "unrecognized_keys") return `${field}: unknown field(s) ${(i as { keys: string[] }).keys.join(", ")}`;
      if (i.code === "invalid_type") {
        // zod 4 issues do not carry the input: look the field up, so a wrong type is not "required".
        const given = valueAt(input, i.path);
        if (given === undefined) return `${field}: is required`;
        return `${field}: must be ${article(i.expected)} ${i.expected}, not ${kindOf(given)}`;
      }
      return `${field}: ${i.message}`;
    })
    .join("; ");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? "an" : "a");
const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `${article(typeof v)} ${typeof v}`);

/** Where a value came from, named in messages about the whole value (e.g. "query: unknown field(s) x"). */
export type InputLocation = "body" | "query" | "path";

/**
 * Parses `value` with `schema`; a failure is a 400 naming the field. Text the database cannot store
 * (NUL, unpaired surrogates: src/shared/input-safety.ts) is refused first, naming the field, and
 * so is any such text a schema's transform produces. This is where path parameters are checked:
 * every router hands its `req.params` to parseWith (the body and query were checked on arrival by
 * rest/input-hygiene.ts).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: InputLocation = "body"): z.output<S> {
  assertSafeInput(value, where);
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw badRequest(describeZodError(r.error, where, value ?? {}));
  assertSafeInput(r.data, where);
  return r.data;
}
