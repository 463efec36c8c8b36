import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorText, Loading, useAction } from './feedback.tsx';
import { SelectField } from './field.tsx';
import { Table, type Column } from './table.tsx';

/** One more of the candidates to link: a select of those not linked yet and its button. */
interface AddOne {
  /** The select's label ("Permission to add") and the button's ("Add permission"). */
  label: string;
  button: string;
  /** Everything that could be linked (undefined while loading); those already linked are left out. */
  candidates: Array<{ value: string; label: string }> | undefined;
  candidatesError?: unknown;
  /** The body field the API names when it refuses (`scopeIds`). */
  field: string;
  /** Said instead of the select when nothing is left to link. */
  none?: ComponentChildren;
  link: (id: string) => Promise<unknown>;
}

/**
 * What is linked to something (a role's permissions, an organization's default roles, its applications): a table with
 * a Remove button per row, the errors of removing under it, and a select to link one more.
 */
export function LinkedItems<T extends { id: string }>(props: {
  linked: { data?: { items: T[] }; error?: unknown; reload: () => void };
  caption: string;
  what: string;
  empty: string;
  columns: Array<Column<T>>;
  removeLabel: (item: T) => string;
  unlink: (item: T) => Promise<unknown>;
  /** More buttons before Remove in a row. */
  actions?: (item: T) => ComponentChildren;
  add?: AddOne;
  children?: ComponentChildren;
}) {
  const { linked } = props;
  const remove = useAction();
  return (
    <>
      {linked.error ? (
        <ErrorText error={linked.error} />
      ) : !linked.data ? (
        <Loading what={props.what} />
      ) : (
        <Table
          caption={props.caption}
          captionHidden
          rows={linked.data.items}
          rowKey={(item) => item.id}
          empty={props.empty}
          columns={[
            ...props.columns,
            {
              header: 'Actions',
              numeric: true,
              cell: (item) => (
                <>
                  {props.actions && <>{props.actions(item)} </>}
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={props.removeLabel(item)}
                    disabled={remove.pending}
                    onClick={async () => {
                      await remove.run(() => props.unlink(item));
                      linked.reload();
                    }}
                  >
                    Remove
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
      <ErrorText error={remove.error} />
      {props.add && <AddForm add={props.add} linked={linked.data?.items} onLinked={linked.reload} />}
      {props.children}
    </>
  );
}

function AddForm<T extends { id: string }>(props: { add: AddOne; linked: T[] | undefined; onLinked: () => void }) {
  const { add } = props;
  const [choice, setChoice] = useState('');
  const action = useAction();
  if (add.candidatesError) return <ErrorText error={add.candidatesError} />;
  if (!add.candidates || !props.linked) return null;
  const linked = new Set(props.linked.map((item) => item.id));
  const options = add.candidates.filter((candidate) => !linked.has(candidate.value));
  if (options.length === 0) return add.none ? <p class="hint">{add.none}</p> : null;
  const selected = options.some((option) => option.value === choice) ? choice : options[0]!.value;
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        await action.run(() => add.link(selected));
        props.onLinked();
      }}
    >
      <SelectField
        label={add.label}
        value={selected}
        onChange={setChoice}
        options={options}
        error={action.fieldError(add.field)}
      />
      <div class="actions">
        <button type="submit" class="secondary" disabled={action.pending}>
          {add.button}
        </button>
      </div>
      <ErrorText error={action.actionError([add.field])} />
    </form>
  );
}
