import type { ComponentChildren } from 'preact';
import { hrefOf, navigate } from '../router.ts';

/** A link inside the console: a real `<a href>` (open in a new tab works), followed without a page load. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a
      href={hrefOf(props.to)}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(event) => {
        if (
          event.defaultPrevented ||
          event.button !== 0 ||
          event.metaKey ||
          event.ctrlKey ||
          event.shiftKey ||
          event.altKey
        )
          return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
