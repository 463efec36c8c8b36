import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { Dialog } from './dialog.tsx';
import { ErrorText, Section, useAction } from './feedback.tsx';

/**
 * A secret the service shows once (a client secret, a signing key, a subject token): readable, selectable and
 * copyable now, never again. Say so, next to it.
 */
export function SecretBox(props: { label: string; value: string; note?: string; multiline?: boolean }) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <div class="secret-box">
      <label for={id}>{props.label}</label>
      {props.multiline ? (
        <textarea
          id={id}
          readOnly
          rows={Math.min(8, props.value.split('\n').length + 1)}
          value={props.value}
          aria-describedby={`${id}-note`}
          onFocus={(event) => event.currentTarget.select()}
        />
      ) : (
        <input
          id={id}
          readOnly
          value={props.value}
          aria-describedby={`${id}-note`}
          onFocus={(event) => event.currentTarget.select()}
        />
      )}
      <p class="hint" id={`${id}-note`}>
        {props.note ?? 'Shown once: copy it now. The service keeps only a digest and cannot show it again.'}
      </p>
      <div class="actions">
        <button type="button" class="secondary" onClick={copy}>
          Copy {props.label.toLowerCase()}
        </button>
        <span role="status" class="status">
          {copied === 'yes'
            ? 'Copied.'
            : copied === 'failed'
              ? 'Copying is blocked here: select the text and copy it.'
              : ''}
        </span>
      </div>
    </div>
  );
}

/**
 * A section that rotates a secret after a confirmation, then shows the new one once. `rotate` answers the new secret,
 * or nothing when the answer carried none.
 */
export function RotateSecretSection(props: {
  title: string;
  description: string;
  button: string;
  confirm: { title: string; text: string };
  secret: { label: string; note?: string };
  rotate: () => Promise<string | undefined>;
  /** What the section shows above its button (a public key). */
  children?: ComponentChildren;
}) {
  const [confirming, setConfirming] = useState(false);
  const [secret, setSecret] = useState<string>();
  const action = useAction();
  return (
    <Section title={props.title} description={props.description}>
      {secret && <SecretBox label={props.secret.label} value={secret} note={props.secret.note} />}
      {props.children}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>
          {props.button}
        </button>
      </div>
      <ErrorText error={action.error} />
      <Dialog title={props.confirm.title} open={confirming} onClose={() => setConfirming(false)}>
        <p>{props.confirm.text}</p>
        <div class="actions">
          <button
            type="button"
            disabled={action.pending}
            onClick={async () => {
              const rotated = await action.run(props.rotate);
              setConfirming(false);
              if (rotated) setSecret(rotated);
            }}
          >
            Rotate
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </Section>
  );
}
