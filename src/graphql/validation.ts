// zod for GraphQL arguments that need more than GraphQL's types (URLs, paths, scope tokens,
// UUIDs). The module schemas speak the REST wire names (snake_case); GraphQL inputs are camelCase,
// so inputs are renamed on the way in and the error names the field as the caller wrote it:
// {"message":"input.publicBaseUrl: must be an absolute http(s) URL ...","extensions":{"code":"BAD_USER_INPUT"}}.
import { z } from "zod";
import { badRequest } from "../shared/errors";
import { describeUnsafeInput, findUnsafeInput } from "../shared/input-safety";

export const idSchema = z.string().uuid("must be a UUID");

const toSnake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const toCamel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** camelCase keys to snake_case; null (GraphQL's "explicitly empty") becomes absent. */
export function toWire(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) out[toSnake(k)] = v;
  return out;
}

function describe(error: z.ZodError, argName: string): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const field = [argName, ...i.path.map((p) => (typeof p === "string" ? toCamel(p) : String(p)))].join(".");
      if (i.code === "unrecognized_keys") return `${field}: unknown field(s) ${(i as { keys: string[] }).keys.map(toCamel).join(", ")}`;
      return `${field}: ${i.message}`;
    })
    .join("; ");
}

/**
 * Text the database cannot store (src/shared/input-safety.ts), before and after parsing: the
 * arguments themselves were checked before execution (graphql/input-hygiene.ts), but JSON text
 * (conditions, inputSchemaJson) is decoded by the resolvers, and what it decodes to is checked here.
 */
function assertStorable(value: unknown, argName: string): void {
  const found = findUnsafeInput(value);
  if (found) throw badRequest(describeUnsafeInput(found, { prefix: [argName], name: toCamel }));
}

/** Parses one argument; a failure is a BAD_USER_INPUT error naming `argName.field`. */
export function parseArg<S extends z.ZodType>(schema: S, value: unknown, argName: string): z.output<S> {
  assertStorable(value, argName);
  const r = schema.safeParse(value);
  if (!r.success) throw badRequest(describe(r.error, argName));
  assertStorable(r.data, argName);
  return r.data;
}
