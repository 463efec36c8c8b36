import { escapeHtml } from '../../lib/oidc/provider.ts';

/** Server-rendered sign-in pages: plain HTML forms, no front-end build step. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;display:flex;justify-content:center;padding-top:10vh;margin:0}
main{background:#fff;padding:2rem 2.5rem;border-radius:12px;box-shadow:0 2px 12px #0001;width:22rem}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .3rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #ccd;border-radius:6px}
button{margin-top:1.2rem;width:100%;padding:.7rem;border:0;border-radius:6px;background:#3556d8;color:#fff;font-size:1rem}
button.secondary{background:#e4e7ee;color:#223}.error{color:#b3261e;font-size:.9rem}ul{padding-left:1.2rem}
</style></head><body><main>${body}</main></body></html>`;
}

export function signInPage(options: { action: string; abort: string; clientName: string; error?: string; identifier?: string }): string {
  return page('Sign in', `<h1>Sign in to ${escapeHtml(options.clientName)}</h1>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.action)}">
<label for="identifier">Username or email</label>
<input id="identifier" name="identifier" autocomplete="username" required value="${escapeHtml(options.identifier ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<form method="post" action="${escapeHtml(options.abort)}"><button class="secondary" type="submit">Cancel</button></form>`);
}

export function consentPage(options: { action: string; abort: string; clientName: string; scopes: string[] }): string {
  const items = options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return page('Authorize', `<h1>${escapeHtml(options.clientName)} asks for access</h1>
<p>It will be able to use:</p><ul>${items}</ul>
<form method="post" action="${escapeHtml(options.action)}"><button type="submit">Allow</button></form>
<form method="post" action="${escapeHtml(options.abort)}"><button class="secondary" type="submit">Deny</button></form>`);
}
