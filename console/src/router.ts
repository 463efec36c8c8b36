import { useEffect, useState } from 'preact/hooks';
import { consolePath } from './config.ts';

/** The console's own path ('/applications/abc'), without the mount prefix and `/console`. */
export function routePath(): string {
  const path = location.pathname.startsWith(consolePath)
    ? location.pathname.slice(consolePath.length)
    : location.pathname;
  return path.replace(/\/+$/, '') || '/';
}

export const hrefOf = (to: string) => `${consolePath}${to === '/' ? '/' : to}`;

const CHANGE = 'console:navigate';

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', hrefOf(to));
  else history.pushState(null, '', hrefOf(to));
  dispatchEvent(new Event(CHANGE));
}

/** The current route path, re-rendering on navigation and on the browser's back and forward. */
export function useRoutePath(): string {
  const [path, setPath] = useState(routePath);
  useEffect(() => {
    const update = () => setPath(routePath());
    addEventListener('popstate', update);
    addEventListener(CHANGE, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(CHANGE, update);
    };
  }, []);
  return path;
}

/**
 * Matches a pattern such as `/applications/:id` against a path; answers the parameters, or undefined.
 */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = got[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual);
    else if (part !== actual) return undefined;
  }
  return params;
}
