import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml, htmlPage } from './html.ts';

/**
 * The pages oidc-provider renders itself, in the service's own template: its defaults load a web font
 * from a third party, which the pages' Content-Security-Policy does not allow.
 */
export function errorPage(out: { error: string; error_description?: string }): string {
  return htmlPage('Error', `<h1>${escapeHtml(out.error)}</h1><p>${escapeHtml(out.error_description ?? '')}</p>`);
}

export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  ctx.type = 'html';
  ctx.body = htmlPage(
    'Sign out',
    `<h1>Do you want to sign out?</h1>${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button class="secondary" type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const client = ctx.oidc.client;
  const name = client?.clientName ?? client?.clientId;
  ctx.type = 'html';
  ctx.body = htmlPage(
    'Signed out',
    `<h1>Signed out</h1><p>You signed out${name ? ` of ${escapeHtml(name)}` : ''}.</p>`,
  );
}
