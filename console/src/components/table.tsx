import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** A narrow, right-aligned column (numbers, actions). */
  numeric?: boolean;
}

/**
 * A data table with a caption (its accessible name). On a narrow screen it scrolls sideways inside a focusable
 * region, so keyboard users can scroll it too.
 */
export function Table<T>(props: {
  caption: string;
  columns: Array<Column<T>>;
  rows: T[];
  rowKey: (row: T) => string;
  empty: ComponentChildren;
  captionHidden?: boolean;
}) {
  return (
    <div class="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption class={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.header} class={column.numeric ? 'numeric' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.length === 0 && (
            <tr>
              <td colSpan={props.columns.length} class="empty">
                {props.empty}
              </td>
            </tr>
          )}
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.header} class={column.numeric ? 'numeric' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / next page controls for a list the API pages. */
export function Pager(props: { page: number; pageSize: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous page
      </button>
      <span>
        Page {props.page} of {pages}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={props.page >= pages}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next page
      </button>
    </nav>
  );
}
