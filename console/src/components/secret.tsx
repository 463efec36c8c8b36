import { useId, useState } from 'preact/hooks';

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
      {props.multiline
        ? <textarea id={id} readOnly rows={Math.min(8, props.value.split('\n').length + 1)} value={props.value} aria-describedby={`${id}-note`} onFocus={(event) => event.currentTarget.select()} />
        : <input id={id} readOnly value={props.value} aria-describedby={`${id}-note`} onFocus={(event) => event.currentTarget.select()} />}
      <p class="hint" id={`${id}-note`}>{props.note ?? 'Shown once: copy it now. The service keeps only a digest and cannot show it again.'}</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={copy}>Copy {props.label.toLowerCase()}</button>
        <span role="status" class="status">{copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying is blocked here: select the text and copy it.' : ''}</span>
      </div>
    </div>
  );
}
