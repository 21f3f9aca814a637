// Keyset pagination shared by every list (docs/architecture.md "Pagination"). A list is an ordered
// set of sort keys ending with the row id (or the composite key), so the order is total and stable.
// A page is read as "rows strictly after the last row of the previous page, in this order"
// (WHERE (k1, k2, ...) > (v1, v2, ...), expanded into a Prisma OR of ANDs), limit + 1 rows at a
// time to know whether more follow. No OFFSET (its cost grows with the page number and it skips or
// repeats rows when rows come and go) and no Prisma `cursor:` (it needs the cursor row to still exist).
//
// A cursor is opaque to clients: base64url of a small JSON array [tag, ...sort-key values of the last
// row]. The tag names the list (its order), so a cursor of one list is refused by another. A cursor
// is a position, not a capability: every query stays scoped by the actor's workspace, and a crafted
// cursor can only move the start of the page.
import { z } from "zod";
import { badRequest } from "./errors";

export const PAGE_LIMIT = Object.freeze({ min: 1, max: 1000, default: 100 });
export const LIMIT_MESSAGE = `must be an integer between ${PAGE_LIMIT.min} and ${PAGE_LIMIT.max}`;
export const CURSOR_MESSAGE = "not a cursor of this list";
/** Longer strings are not ours (a cursor holds a few short keys). */
const MAX_CURSOR_LENGTH = 2048;
const MAX_STRING_KEY = 1024;

export type KeyKind = "string" | "date" | "int";
export type KeyValue = string | number | Date;

/** One sort key: a column of the row (or `relation.column`), its direction and its type. */
export interface SortKey {
  field: string;
  dir: "asc" | "desc";
  kind: KeyKind;
}

/** A decoded cursor: the sort-key values of the last row of the previous page. */
export interface Position {
  readonly tag: string;
  readonly values: readonly KeyValue[];
}

/** What a list method takes (besides its filters): parsed at the boundary. */
export interface PageRequest {
  limit: number;
  cursor?: Position;
}

/** What every list answers. `count` is the number of items in this page (never a total). */
export interface Page<T> {
  items: T[];
  count: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export const FIRST_PAGE: Readonly<PageRequest> = Object.freeze({ limit: PAGE_LIMIT.default });

/** `{ user: { email: leaf } }` for field "user.email". */
function nest(field: string, leaf: unknown): Record<string, unknown> {
  return field
    .split(".")
    .reverse()
    .reduce<unknown>((inner, part) => ({ [part]: inner }), leaf) as Record<string, unknown>;
}

function serialize(value: KeyValue): string | number {
  return value instanceof Date ? value.toISOString() : value;
}

function deserialize(kind: KeyKind, raw: unknown): KeyValue | undefined {
  switch (kind) {
    case "string":
      return typeof raw === "string" && raw.length <= MAX_STRING_KEY ? raw : undefined;
    case "int":
      return typeof raw === "number" && Number.isSafeInteger(raw) ? raw : undefined;
    case "date": {
      if (typeof raw !== "string") return undefined;
      const d = new Date(raw);
      // Only the exact form we write (toISOString) round-trips.
      return Number.isNaN(d.getTime()) || d.toISOString() !== raw ? undefined : d;
    }
  }
}

/**
 * One list's order and cursors. `Where` and `OrderBy` are the Prisma input types of the model the
 * list reads (the helper itself knows no model); `keyOf` gives a row's sort-key values in order.
 */
export class Keyset<Row, Where = unknown, OrderBy = unknown> {
  /** The Prisma `orderBy` of the list (the sort keys in order). */
  readonly orderBy: OrderBy;

  constructor(
    readonly tag: string,
    private readonly keys: readonly SortKey[],
    private readonly keyOf: (row: Row) => readonly KeyValue[],
  ) {
    this.orderBy = keys.map((k) => nest(k.field, k.dir)) as OrderBy;
  }

  /** The opaque cursor for a position given by its sort-key values. */
  encode(values: readonly KeyValue[]): string {
    return Buffer.from(JSON.stringify([this.tag, ...values.map(serialize)]), "utf8").toString("base64url");
  }

  /** The cursor positioned right after `row` in this list. */
  cursorAfter(row: Row): string {
    return this.encode(this.keyOf(row));
  }

  /** The position a cursor names, or null when it is not a cursor of this list. */
  decode(cursor: string): Position | null {
    if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    if (!Array.isArray(parsed) || parsed.length !== this.keys.length + 1 || parsed[0] !== this.tag) return null;
    const values: KeyValue[] = [];
    for (const [i, key] of this.keys.entries()) {
      const v = deserialize(key.kind, parsed[i + 1]);
      if (v === undefined) return null;
      values.push(v);
    }
    return { tag: this.tag, values };
  }

  /**
   * `base` narrowed to the rows after `position` (all of `base` without one): the keyset condition
   * (k1 > v1) OR (k1 = v1 AND k2 > v2) OR ..., with < for descending keys.
   */
  where(base: Where, position?: Position): Where {
    if (!position) return base;
    if (position.tag !== this.tag || position.values.length !== this.keys.length) throw badRequest(`cursor: ${CURSOR_MESSAGE}`);
    const or = this.keys.map((key, i) => ({
      AND: [
        ...this.keys.slice(0, i).map((prev, j) => nest(prev.field, { equals: position.values[j] })),
        nest(key.field, { [key.dir === "asc" ? "gt" : "lt"]: position.values[i] }),
      ],
    }));
    return { AND: [base, { OR: or }] } as Where;
  }

  /** Rows read with `take: limit + 1`: the page's rows and the cursor after the last of them (null when none followed). */
  slice<R extends Row>(rows: readonly R[], limit: number): { rows: R[]; next_cursor: string | null } {
    const pageRows = rows.slice(0, limit);
    const more = rows.length > limit && pageRows.length > 0;
    return { rows: pageRows, next_cursor: more ? this.cursorAfter(pageRows[pageRows.length - 1]!) : null };
  }

  /** The wire page of rows read with `take: limit + 1`. */
  page<R extends Row, T>(rows: readonly R[], limit: number, view: (row: R) => T): Page<T> {
    const { rows: pageRows, next_cursor } = this.slice(rows, limit);
    const items = pageRows.map(view);
    return { items, count: items.length, next_cursor };
  }
}

/** Any list's keyset (the zod helpers only call decode). */
type AnyKeyset = Keyset<any, any, any>;

/** `limit`: 1..1000, default 100. A query-string value ("25") or a number; anything else is refused. */
export const limitSchema = z.unknown().optional().transform((v, ctx): number => {
  if (v === undefined || v === null) return PAGE_LIMIT.default;
  const n = typeof v === "number" ? v : typeof v === "string" && /^[0-9]{1,7}$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n < PAGE_LIMIT.min || n > PAGE_LIMIT.max) {
    ctx.addIssue({ code: "custom", message: LIMIT_MESSAGE });
    return z.NEVER;
  }
  return n;
});

/** `cursor`: absent, or a cursor of `keyset` (decoded to its position). */
export function cursorSchema(keyset: AnyKeyset) {
  return z.unknown().optional().transform((v, ctx): Position | undefined => {
    if (v === undefined || v === null) return undefined;
    const position = typeof v === "string" ? keyset.decode(v) : null;
    if (!position) {
      ctx.addIssue({ code: "custom", message: CURSOR_MESSAGE });
      return z.NEVER;
    }
    return position;
  });
}

/** The `limit` and `cursor` query parameters of a list, to spread into its zod query object. */
export function pageQuery(keyset: AnyKeyset) {
  return { limit: limitSchema, cursor: cursorSchema(keyset) };
}

/** A zod object of just `limit` and `cursor` (for lists without other filters). */
export function pageQuerySchema(keyset: AnyKeyset) {
  return z.object(pageQuery(keyset));
}
