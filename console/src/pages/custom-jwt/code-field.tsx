import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { EditorView } from '@codemirror/view';
import { ErrorText } from '../../components/feedback.tsx';
import './editor.css';

/**
 * A labelled code editor with the API's error under it. The editor arrives in its own chunk, loaded on first use.
 * It owns its text while mounted: `initialValue` is read once, and every change is reported through `onChange`,
 * never written back. (Writing the parent's value back raced the editor: an effect still holding an older value
 * replaced newer text, which was reported, re-rendered and written back in turn, without end.) A parent that must
 * replace the text gives the field a new `key`.
 */
export function CodeField(props: {
  label: string;
  initialValue: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: string;
}) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState<unknown>();
  const describedBy =
    [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const latest = useRef(props.onChange);
  latest.current = props.onChange;

  useEffect(() => {
    let cancelled = false;
    void import('./editor.ts').then(({ createEditor }) => {
      if (cancelled || !host.current) return;
      view.current = createEditor({
        parent: host.current,
        doc: props.initialValue,
        label: props.label,
        describedBy,
        onChange: (text) => latest.current(text),
      });
      setReady(true);
    }, setFailed);
    return () => {
      cancelled = true;
      view.current?.destroy();
    };
  }, []);

  useEffect(() => {
    const content = view.current?.contentDOM;
    if (!content) return;
    if (props.error) content.setAttribute('aria-invalid', 'true');
    else content.removeAttribute('aria-invalid');
    if (describedBy) content.setAttribute('aria-describedby', describedBy);
    else content.removeAttribute('aria-describedby');
  }, [props.error, describedBy, ready]);

  return (
    <div class={`field code-field${props.error ? ' invalid' : ''}`}>
      <p class="group-label" id={`${id}-label`}>
        {props.label}
      </p>
      <div ref={host} class="code-editor" />
      {!ready && !failed && (
        <p class="loading" role="status">
          Loading the editor…
        </p>
      )}
      <ErrorText error={failed} />
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
