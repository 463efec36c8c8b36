import type { ComponentChildren } from 'preact';
import { servicePath } from '../config.ts';
import type { PageModule } from '../pages.ts';
import { Link } from './link.tsx';

/** The frame of every signed-in page: skip link, navigation, who is signed in, sign out. */
export function Layout(props: {
  pages: PageModule[];
  current: string | undefined;
  userName: string;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Identity console</span>
        <span class="who">
          Signed in as <strong>{props.userName}</strong>
        </span>
        <button type="button" class="secondary small" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Console">
        <ul>
          {props.pages.map((page) => (
            <li key={page.id}>
              <Link to={`/${page.id}`} aria-current={page.id === props.current ? 'page' : undefined}>
                {page.title}
              </Link>
            </li>
          ))}
          <li>
            <a href={`${servicePath}/api/docs`}>API reference</a>
          </li>
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}
