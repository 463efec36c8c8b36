import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal dialog on the native `<dialog>`: focus moves into it and stays there, Escape closes it, and the focus
 * returns to what opened it. Named by its heading.
 */
export function Dialog(props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    // Escape fires `cancel` and then `close`: listening to `close` alone hears every way out once.
    <dialog ref={ref} aria-labelledby={titleId} onClose={() => props.onClose()}>
      <div class="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={() => props.onClose()}>
          ×
        </button>
      </div>
      {props.open && props.children}
    </dialog>
  );
}
