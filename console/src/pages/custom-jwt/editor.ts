import { basicSetup } from 'codemirror';
import { javascript } from '@codemirror/lang-javascript';
import { EditorView } from '@codemirror/view';
import { config } from '../../config.ts';

/**
 * A JavaScript editor (CodeMirror 6: highlighting, brackets, search, undo), loaded only by the page that needs it.
 * Tab is left to moving the focus, so keyboard users can leave the editor; its content element carries the label.
 */
export function createEditor(options: {
  parent: HTMLElement;
  doc: string;
  label: string;
  describedBy?: string;
  onChange: (text: string) => void;
}): EditorView {
  return new EditorView({
    parent: options.parent,
    doc: options.doc,
    extensions: [
      basicSetup,
      javascript(),
      // Its theme goes into a <style> element, which the page's CSP allows only with this nonce.
      EditorView.cspNonce.of(config.styleNonce),
      EditorView.contentAttributes.of({
        'aria-label': options.label,
        ...(options.describedBy && { 'aria-describedby': options.describedBy }),
      }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onChange(update.state.doc.toString());
      }),
    ],
  });
}
