// A table with a caption (its accessible name), column headers, an empty state, and row actions as
// buttons in the last column. Lists come one page at a time (`first`/`after` in the graph): a
// "Show more" button reads the next page when the page was full.
import type { ReactNode } from "react";

export interface Column<R> {
  header: string;
  cell: (row: R) => ReactNode;
  /** The row's header cell (scope=row), e.g. its name. */
  rowHeader?: boolean;
}

export function DataTable<R>(props: {
  caption: string;
  rows: readonly R[];
  columns: Column<R>[];
  rowKey: (row: R) => string;
  empty: ReactNode;
  actions?: (row: R) => ReactNode;
  more?: { hasMore: boolean; onMore: () => void };
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {props.rows.length === 0 && (
            <tr>
              <td colSpan={props.columns.length + (props.actions ? 1 : 0)} className="empty">
                {props.empty}
              </td>
            </tr>
          )}
          {props.rows.map((r) => (
            <tr key={props.rowKey(r)}>
              {props.columns.map((c) =>
                c.rowHeader ? (
                  <th key={c.header} scope="row">
                    {c.cell(r)}
                  </th>
                ) : (
                  <td key={c.header}>{c.cell(r)}</td>
                ),
              )}
              {props.actions && <td className="row-actions">{props.actions(r)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {props.more?.hasMore && (
        <button type="button" onClick={props.more.onMore}>
          Show more
        </button>
      )}
    </div>
  );
}

export function Badge({ tone = "neutral", children }: { tone?: "neutral" | "ok" | "warn" | "danger" | "info"; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** A timestamp as the reader's local time, with the ISO value for exactness. */
export function When({ at, never = "never" }: { at: string | null | undefined; never?: string }) {
  if (!at) return <span className="muted">{never}</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}
