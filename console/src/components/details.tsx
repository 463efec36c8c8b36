import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorText, Loading, type useAction } from './feedback.tsx';
import { Link } from './link.tsx';

/**
 * The page of one record: a link back to its list, then the record once loaded (or why it is not). `children` renders
 * the loaded record; it runs in this component's render, so it uses no hooks of its own.
 */
export function DetailsPage<T>(props: {
  record: { data?: T; error?: unknown };
  back: { to: string; label: string };
  /** What is loading, as "Loading …" says it: "the role". */
  what: string;
  children: (current: T) => ComponentChildren;
}) {
  const back = (
    <p>
      <Link to={props.back.to}>← {props.back.label}</Link>
    </p>
  );
  if (props.record.error)
    return (
      <>
        {back}
        <ErrorText error={props.record.error} />
      </>
    );
  if (!props.record.data) return <Loading what={props.what} />;
  return (
    <>
      {back}
      {props.children(props.record.data)}
    </>
  );
}

/**
 * A form that saves a record: `save` runs as `action`, the saved record goes to `onSaved`, and the status says
 * "Saved." until the next submit. `error` is what to show by the button (what the fields do not show already).
 */
export function SaveForm<T>(props: {
  action: ReturnType<typeof useAction>;
  save: () => Promise<T>;
  onSaved: (saved: T) => void;
  error: unknown;
  button?: string;
  children: ComponentChildren;
}) {
  const [saved, setSaved] = useState(false);
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        setSaved(false);
        const updated = await props.action.run(props.save);
        if (updated) {
          props.onSaved(updated);
          setSaved(true);
        }
      }}
    >
      {props.children}
      <div class="actions">
        <button type="submit" disabled={props.action.pending}>
          {props.button ?? 'Save settings'}
        </button>
        <span role="status" class="status">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
      <ErrorText error={props.error} />
    </form>
  );
}

/** A record's name as the page's heading, a badge beside it when one applies, and its facts (id, type, …) under it. */
export function RecordHeading(props: {
  title: ComponentChildren;
  badge?: string | false;
  facts?: Array<[string, ComponentChildren]>;
}) {
  return (
    <>
      <div class="page-head">
        <h1>{props.title}</h1>
        {props.badge && <span class="badge">{props.badge}</span>}
      </div>
      {props.facts && (
        <dl class="facts">
          {props.facts.map(([term, value]) => (
            <Fragment key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </>
  );
}
