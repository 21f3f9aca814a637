// Pagination of the graph's growing lists (docs/graphql.md "Pagination"): optional `first` and
// `after` arguments on the list field, and a `cursor` field on the item type. A list field still
// returns a plain list; a client passes the last item's `cursor` as `after` for the next page, and
// has reached the end when a page holds fewer than `first` items (or none). Cursors are the REST
// API's (src/shared/pagination.ts): the same keyset, the same encoding, usable in either API.
import { PAGE_LIMIT, cursorSchema, limitSchema, type Keyset, type PageRequest } from "../../shared/pagination";
import { builder } from "../builder";
import { parseArg } from "../validation";

/** Spread into a list field's `args`. */
export const pageArgs = builder.args((t) => ({
  first: t.int({ required: false, description: `Page size, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default}).` }),
  after: t.string({ required: false, description: "The `cursor` of the last item already read: the page starts right after it." }),
}));

/** The page asked for; a bad `first` or `after` is BAD_USER_INPUT naming the argument. */
export function pageOf(keyset: Keyset<any, any, any>, args: { first?: number | null; after?: string | null }): PageRequest {
  return {
    limit: parseArg(limitSchema, args.first ?? undefined, "first"),
    cursor: parseArg(cursorSchema(keyset), args.after ?? undefined, "after"),
  };
}

export const CURSOR_DESCRIPTION = "Opaque position right after this item in its list; pass it as `after` to read the next page.";
