import type { Context, Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { STYLE_SOURCE } from './html.ts';
import { when } from './when.ts';

const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'blob:', 'filesystem:']);

/**
 * The CSP source covering a form's target or a redirect that follows its submission (browsers check
 * `form-action` on every hop): an http(s) origin, or a native application's scheme.
 */
export function formTargetSource(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const { protocol, origin } = new URL(url);
  if (protocol === 'http:' || protocol === 'https:') return origin;
  return UNSAFE_SCHEMES.has(protocol) ? undefined : protocol;
}

export interface PagePolicy {
  /** URLs the page's forms post to, and where those posts may be redirected. */
  formTargets: string[];
  /** `'sha256-…'` sources of inline scripts the page runs, or the URLs of the script files it loads. */
  scriptSources?: string[];
  /** Images the page shows (an application's logo): each one's http(s) origin is allowed, nothing else. */
  images?: string[];
  /** The page shows an image it carries itself (a QR code as a `data:` URL): only the pages that do say so. */
  dataImages?: boolean;
  /** `'sha256-…'` sources of the page's style elements besides the service's own (an organization's branding). */
  styleSources?: string[];
}

/** The origin of an http(s) image URL; anything else (data:, javascript:, relative) is never allowed. */
function imageSource(url: string): string | undefined {
  const parsed = URL.parse(url);
  return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed.origin : undefined;
}

/** Headers of every HTML page: nothing loads or runs but what the page itself needs, and no framing. */
export function setPageHeaders(ctx: Context, policy: PagePolicy): void {
  const formAction = [...new Set(policy.formTargets.map(formTargetSource).filter((source) => source !== undefined))];
  const images = [...new Set((policy.images ?? []).map(imageSource).filter((source) => source !== undefined))];
  if (policy.dataImages) images.push('data:');
  const directives = [
    "default-src 'none'",
    ...(policy.scriptSources?.length ? [`script-src ${policy.scriptSources.join(' ')}`] : []),
    ...(images.length ? [`img-src ${images.join(' ')}`] : []),
    `style-src ${[STYLE_SOURCE, ...(policy.styleSources ?? [])].join(' ')}`,
    `form-action ${formAction.length ? formAction.join(' ') : "'none'"}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ];
  setDocumentHeaders(ctx, directives);
}

/** The page's content security policy, with what every page of the service sends: no framing, no sniffing, no referrer. */
export function setDocumentHeaders(ctx: Context, directives: readonly string[]): void {
  ctx.set('Content-Security-Policy', directives.join('; '));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}

/** Where the provider's own pages (form_post, logout) send the browser: the client's registered URIs only. */
function providerFormTargets(ctx: Context): string[] {
  const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
  const client = oidc?.client;
  const params = oidc?.params;
  if (!client || !params) return [];
  const targets: string[] = [];
  const { redirect_uri: redirect, post_logout_redirect_uri: postLogout } = params;
  if (typeof redirect === 'string' && client.redirectUriAllowed(redirect)) targets.push(redirect);
  if (typeof postLogout === 'string' && client.postLogoutRedirectUriAllowed(postLogout)) targets.push(postLogout);
  return targets;
}

const PLACEHOLDER = "script-src 'none'";

/**
 * Page headers for the HTML the provider renders under `prefix` (error, logout and form_post pages).
 * oidc-provider adds the hash of its inline auto-submit script to a `script-src` it finds already set, so
 * a placeholder goes first; once the response is known, the finished policy replaces it (or, for
 * anything but HTML, it is removed).
 */
export function providerPageSecurity(options: { prefix: string; serviceUrl: string }): Middleware {
  const { prefix, serviceUrl } = options;
  // Endpoints that answer JSON whatever happens (their errors included): nothing to place or finish there.
  const jsonOnly = new Set(
    ['/token', '/token/introspection', '/token/revocation', '/jwks', '/me'].map((path) => `${prefix}${path}`),
  );
  const secure: Middleware = async (ctx, next) => {
    ctx.set('Content-Security-Policy', PLACEHOLDER);
    await next();
    if (ctx.headerSent) return;
    const placed = ctx.response.get('Content-Security-Policy');
    if (!ctx.response.is('html')) {
      if (placed === PLACEHOLDER) ctx.remove('Content-Security-Policy');
      return;
    }
    const scriptSources = (/script-src ([^;]*)/.exec(placed)?.[1] ?? '')
      .split(/\s+/)
      .filter((source) => source.startsWith("'sha256-"));
    setPageHeaders(ctx, { formTargets: [serviceUrl, ...providerFormTargets(ctx)], scriptSources });
  };
  return when((ctx) => (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) && !jsonOnly.has(ctx.path), secure);
}
