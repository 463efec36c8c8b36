import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorText, Loading, useLoad, type useAction } from './feedback.tsx';
import { TextField } from './field.tsx';
import { Pager, Table, type Column } from './table.tsx';

const PAGE_SIZE = 20;

/**
 * A page listing what the API pages: its heading with a create button, a search, the table and its pager. `create`
 * renders the create dialog, open while `open` is true; `close` closes it, `reload` reads the list again.
 */
export function ListPage<T extends { id: string }>(props: {
  title: string;
  /** The table's caption, when it differs from the title. */
  caption?: string;
  hint?: ComponentChildren;
  /** The create button's label: "Create role". */
  createLabel: string;
  create: (dialog: { open: boolean; close: () => void; reload: () => void }) => ComponentChildren;
  search: { label: string; placeholder: string };
  /** What is loading, as "Loading …" says it: "roles". */
  what: string;
  empty: { none: string; noMatch: string };
  load: (query: string, paging: { page: number; page_size: number }) => Promise<{ items: T[]; total: number }>;
  columns: Array<Column<T>>;
}) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => props.load(query, { page, page_size: PAGE_SIZE }), [page, query]);
  return (
    <>
      <div class="page-head">
        <h1>{props.title}</h1>
        <button type="button" onClick={() => setCreating(true)}>
          {props.createLabel}
        </button>
      </div>
      {props.hint && <p class="hint">{props.hint}</p>}
      <form
        class="search"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setQuery(search.trim());
        }}
      >
        <TextField
          label={props.search.label}
          type="search"
          value={search}
          onInput={setSearch}
          placeholder={props.search.placeholder}
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {list.error ? (
        <ErrorText error={list.error} />
      ) : !list.data ? (
        <Loading what={props.what} />
      ) : (
        <>
          <Table
            caption={props.caption ?? props.title}
            captionHidden
            rows={list.data.items}
            rowKey={(row) => row.id}
            empty={query ? props.empty.noMatch : props.empty.none}
            columns={props.columns}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      {props.create({ open: creating, close: () => setCreating(false), reload: list.reload })}
    </>
  );
}

/** What a create dialog shows once the record exists: its secrets, shown once, and a way to open it or be done. */
export function Created(props: {
  what: string;
  name: string;
  open: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <div>
      <p class="notice" role="status">
        {props.what} <strong>{props.name}</strong> created.
      </p>
      {props.children}
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            props.onClose();
            props.open();
          }}
        >
          Open {props.what.toLowerCase()}
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * A create dialog's form: `create` runs as `action`, and what it made goes to `onCreated`. Create and Cancel
 * buttons, then `error`: what to show by them (what the fields do not show already).
 */
export function CreateForm<T>(props: {
  action: ReturnType<typeof useAction>;
  create: () => Promise<T>;
  onCreated: (created: T) => void;
  onCancel: () => void;
  error: unknown;
  children: ComponentChildren;
}) {
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await props.action.run(props.create);
        if (created) props.onCreated(created);
      }}
    >
      {props.children}
      <div class="actions">
        <button type="submit" disabled={props.action.pending}>
          Create
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <ErrorText error={props.error} />
    </form>
  );
}
