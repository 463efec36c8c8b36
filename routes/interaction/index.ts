import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Context, Middleware } from 'koa';
import { composeMiddleware } from '../../lib/oidc/boundary.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { createPasswordSignIn } from '../../lib/sign-in/password.ts';
import { createLockout } from '../../lib/sign-in/lockout.ts';
import { parseBody } from '../../lib/http/body.ts';
import { interactionContext } from '../../lib/events/context.ts';
import { htmlErrorMiddleware } from '../../lib/http/errors.ts';
import { messagePage } from '../../lib/http/html.ts';
import { setPageHeaders } from '../../lib/http/page-security.ts';
import { CSRF_FIELD, consentPage, signInPage } from './pages.ts';
import { createFormTokens } from './csrf.ts';

type Details = Awaited<ReturnType<ServiceCore['provider']['interactionDetails']>>;

const MESSAGES = {
  invalid_credentials: 'The username, email or password is not right.',
  suspended: 'This account is suspended.',
  locked: 'Too many failed attempts. This sign-in is locked for a while; try again later.',
} as const;

/**
 * The sign-in UI the provider sends browsers to: password sign-in and, for third-party applications,
 * consent. First-party applications are granted their scopes without a consent screen.
 */
export function interactionRoutes(core: ServiceCore): Middleware {
  const { provider, repositories, settings } = core;
  const lockout = createLockout({
    kv: core.kv, bus: core.bus, policy: { threshold: settings.LOCKOUT_THRESHOLD, lockSeconds: settings.LOCKOUT_SECONDS },
  });
  const signIn = createPasswordSignIn({ repositories, lockout });
  const router = new Router({ prefix: '/interaction' });
  const form = parseBody(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '16kb' }));
  const url = (uid: string, action = '') => `${settings.baseUrl}/interaction/${uid}${action}`;
  const tokens = createFormTokens(settings.cookieKeys);
  const forms = (details: Details, step: '/login' | '/consent') => ({
    action: url(details.uid, step), abort: url(details.uid, '/abort'), csrf: tokens.issue(details.uid),
  });

  /** Sends a page; its forms post to the service, which redirects to the client's redirect URI. */
  function send(ctx: Context, status: number, html: string, details?: Details): void {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = html;
    const redirectUri = details?.params.redirect_uri;
    setPageHeaders(ctx, {
      formTargets: details ? [settings.baseUrl, ...(typeof redirectUri === 'string' ? [redirectUri] : [])] : [],
    });
  }

  /** The interaction, when the form carries its CSRF token; otherwise answers 403 and nothing is evaluated. */
  async function submitted(ctx: Context): Promise<Details | undefined> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (tokens.verify(details.uid, body[CSRF_FIELD])) return details;
    send(ctx, 403, messagePage('Sign-in form not accepted',
      'This form was not sent from the sign-in page, or the page is out of date.',
      { href: url(details.uid), label: 'Back to the sign-in page' }));
    return undefined;
  }

  async function clientName(details: Details): Promise<string> {
    const app = await repositories.applications.findById(String(details.params.client_id));
    return app?.name ?? 'the application';
  }

  router.get('/:uid', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    core.experience.bindCookie(ctx, details);
    const name = await clientName(details);
    if (details.prompt.name === 'login') {
      send(ctx, 200, signInPage({ ...forms(details, '/login'), clientName: name }), details);
      return;
    }
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    const missingScopes = [...(missing.missingOIDCScope ?? []), ...Object.values(missing.missingResourceScopes ?? {}).flat()];
    // An explicit prompt=consent re-asks for what was granted before: show the request then.
    const scopes = missingScopes.length ? missingScopes : String(details.params.scope ?? '').split(' ').filter(Boolean);
    send(ctx, 200, consentPage({ ...forms(details, '/consent'), clientName: name, scopes }), details);
  });

  router.post('/:uid/login', form, async (ctx) => {
    const details = await submitted(ctx);
    if (!details) return;
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const identifier = typeof body.identifier === 'string' ? body.identifier.trim().slice(0, 256) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 256) : '';
    const result = identifier && password ? await signIn(identifier, password) : { ok: false as const, reason: 'invalid_credentials' as const };
    if (!result.ok) {
      send(ctx, result.reason === 'locked' ? 429 : 401, signInPage({
        ...forms(details, '/login'), clientName: await clientName(details),
        error: MESSAGES[result.reason], identifier,
      }), details);
      return;
    }
    const user = (await repositories.users.update(result.user.id, { lastSignInAt: Date.now() })) ?? result.user;
    const app = await repositories.applications.findById(String(details.params.client_id));
    await core.bus.emit('PostSignIn', {
      userId: user.id, user,
      application: app ? { id: app.id, type: app.type, name: app.name, description: app.description } : undefined,
    }, interactionContext(ctx, details.jti));
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
    ctx.respond = false;
  });

  router.post('/:uid/consent', form, async (ctx) => {
    const details = await submitted(ctx);
    if (!details) return;
    const accountId = details.session?.accountId;
    if (details.prompt.name !== 'consent' || !accountId) {
      send(ctx, 400, messagePage('Nothing to allow', 'No consent is pending for this sign-in.'));
      return;
    }
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    ctx.respond = false;
  });

  router.post('/:uid/abort', form, async (ctx) => {
    if (!(await submitted(ctx))) return;
    await provider.interactionFinished(ctx.req, ctx.res, {
      error: 'access_denied', error_description: 'the user cancelled',
    }, { mergeWithLastSubmission: false });
    ctx.respond = false;
  });

  const pages = composeMiddleware([htmlErrorMiddleware(core.logger), router.routes()]);
  return (ctx, next) => (ctx.path.startsWith('/interaction/') ? pages(ctx, next) : next());
}
