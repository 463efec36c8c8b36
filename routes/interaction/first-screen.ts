import { signInHints } from '../../lib/oidc/sign-in-parameters.ts';

/**
 * The page an interaction opens on (the path after `/interaction/<uid>`), as its authorization request asks: straight
 * to a connector (`direct_sign_in`), the registration or forgotten-password page (`first_screen`), or the sign-in
 * page. The interaction opens at `/interaction/<uid>?start`, which goes on to it; the pages' "Sign in instead" links
 * lead to `/interaction/<uid>`, the sign-in page itself.
 */
export function firstPagePath(prompt: string, params: Record<string, unknown>): string {
  if (prompt !== 'login') return '';
  const hints = signInHints(params);
  if (hints.directSignIn)
    return `/direct/${hints.directSignIn.method}/${encodeURIComponent(hints.directSignIn.target)}`;
  if (hints.firstScreen === 'register') return '/sign-up';
  if (hints.firstScreen === 'reset-password') return '/forgot-password';
  return '';
}
