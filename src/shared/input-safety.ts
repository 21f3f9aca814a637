// What input the databases cannot store, for every transport (REST and GraphQL call this; neither
// imports the other). Input that breaks storage must be refused as bad input (400 /
// BAD_USER_INPUT) at the boundary, never reach a query as a 500, and never be stored lossily:
// - NUL (U+0000): PostgreSQL rejects it in text (SQLSTATE 22021) and in JSON (\u0000 in jsonb);
// - an unpaired UTF-16 surrogate (U+D800..U+DFFF not part of a pair): no UTF-8 spelling exists, so
//   PostgreSQL rejects it ("invalid input syntax for type json") and SQLite stores U+FFFD instead,
//   after which the stored value no longer equals the one sent (a manifest pushed again collided
//   with its own lossy copy on a unique index);
// - JSON nested absurdly deep: the code that serialises it runs out of stack.
// Everything else (control characters, characters above U+FFFF, empty strings) is the business of
// each field's own schema.

/** Nesting deeper than this is refused (free-form JSON such as input schemas stays far below it). */
export const MAX_JSON_DEPTH = 32;

/** The message for a field holding NUL or an unpaired surrogate, after its name. */
export const UNSTORABLE_TEXT = "must not contain NUL characters or unpaired surrogates";

export type UnsafeKind = "nul" | "surrogate" | "depth";

export interface UnsafeInput {
  kind: UnsafeKind;
  /** Where, from the root of the value: keys and array indexes (a bad key is reported at its object). */
  path: (string | number)[];
}

/**
 * A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16
 * code units: no `u` flag). `String.prototype.isWellFormed` says the same, but is not in the
 * ES2023 library this project compiles against.
 */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` cannot be stored, or null when it can. */
export function unsafeText(text: string): Exclude<UnsafeKind, "depth"> | null {
  if (text.includes("\u0000")) return "nul";
  if (UNPAIRED_SURROGATE.test(text)) return "surrogate";
  return null;
}

/** The first part of `value` that cannot be stored (depth-first), or null when all of it can. */
export function findUnsafeInput(value: unknown, path: (string | number)[] = [], depth = 0): UnsafeInput | null {
  if (typeof value === "string") {
    const kind = unsafeText(value);
    return kind ? { kind, path } : null;
  }
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_JSON_DEPTH) return { kind: "depth", path };
  const array = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const kind = unsafeText(k);
    if (kind) return { kind, path };
    const found = findUnsafeInput(v, [...path, array ? Number(k) : k], depth + 1);
    if (found) return found;
  }
  return null;
}

export interface DescribeOptions {
  /** Path segments before the value's own (GraphQL: the argument, e.g. ["input"]). */
  prefix?: (string | number)[];
  /** The name of the value itself, used when the problem is at its root (e.g. "body"). */
  whole?: string;
  /** Renames each key of the value (GraphQL speaks camelCase where the wire value is snake_case). */
  name?: (key: string) => string;
}

/** "<field>: <problem>", the field as a dotted path: `client_id: ...`, `input.conditions.mfa: ...`. */
export function describeUnsafeInput(found: UnsafeInput, opts: DescribeOptions = {}): string {
  const name = opts.name ?? ((k: string) => k);
  const field = [...(opts.prefix ?? []), ...found.path.map((p) => (typeof p === "string" ? name(p) : p))].join(".") || (opts.whole ?? "value");
  return found.kind === "depth" ? `${field}: nests deeper than ${MAX_JSON_DEPTH} levels` : `${field}: ${UNSTORABLE_TEXT}`;
}
