import { useState } from 'preact/hooks';
import { Dialog } from './dialog.tsx';
import { ErrorText, Section, useAction } from './feedback.tsx';

/** A "delete this" section: a danger button, a confirmation dialog saying what ends, then `onDeleted`. */
export function DeleteSection(props: {
  what: string;
  name: string;
  description: string;
  consequence: string;
  remove: () => Promise<unknown>;
  onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  return (
    <Section title={`Delete ${props.what}`} description={props.description}>
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete {props.what}
        </button>
      </div>
      <ErrorText error={action.error} />
      <Dialog title={`Delete ${props.name}?`} open={confirming} onClose={() => setConfirming(false)}>
        <p>{props.consequence}</p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={action.pending}
            onClick={async () => {
              const done = await action.run(async () => {
                await props.remove();
                return true;
              });
              setConfirming(false);
              if (done) props.onDeleted();
            }}
          >
            Delete
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </Section>
  );
}
