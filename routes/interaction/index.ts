import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Context, Middleware } from 'koa';
import { composeMiddleware } from '../../lib/oidc/boundary.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { parseBody } from '../../lib/http/body.ts';
import { htmlErrorMiddleware } from '../../lib/http/errors.ts';
import { messagePage } from '../../lib/http/html.ts';
import { signUpPage } from './account-pages.ts';
import { forgotPasswordRoutes } from './forgot-password.ts';
import { createPageKit, type Details } from './kit.ts';
import { consentPage } from './pages.ts';
import { signInPageOf, signInRoutes } from './sign-in.ts';
import { signUpRoutes } from './sign-up.ts';
import { mfaRoutes } from './mfa.ts';
import { profileRoutes } from './profile.ts';
import { passkeyRoutes } from './passkeys.ts';
import { connectorPageRoutes } from './connectors.ts';
import { firstPagePath } from './first-screen.ts';

/**
 * The sign-in UI the provider sends browsers to, a second face of the experience library (the Experience API
 * is the first): sign-in by password or code, sign-up, forgotten passwords and, for third-party applications,
 * consent. First-party applications are granted their scopes without a consent screen.
 */
export function interactionRoutes(
  core: Pick<
    ServiceCore,
    | 'applications'
    | 'connectors'
    | 'experience'
    | 'logger'
    | 'organizations'
    | 'provider'
    | 'settings'
    | 'signInExperience'
  >,
): Middleware {
  const { provider, experience } = core;
  const router = new Router({ prefix: '/interaction' });
  const form = parseBody(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '16kb' }));
  const kit = createPageKit(core);

  /** Grants what the consent prompt found missing (its scopes, claims and resource scopes) and finishes it. */
  async function consent(ctx: Context, details: Details, accountId: string): Promise<void> {
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    ctx.respond = false;
  }

  router.get('/:uid', async (ctx) => {
    const visit = await kit.visit(ctx);
    const { details } = visit;
    if (details.prompt.name === 'login') {
      const start = ctx.query.start === undefined ? '' : firstPagePath(details.prompt.name, details.params);
      if (start) {
        kit.redirect(ctx, visit.at(start));
        return;
      }
      experience.bindCookie(ctx, details);
      const notice = typeof ctx.query.notice === 'string' ? ctx.query.notice : undefined;
      const html = visit.methods.canSignIn
        ? signInPageOf(visit, notice)
        : signUpPage({ ...visit, policy: visit.settings.passwordPolicy });
      kit.send(ctx, 200, html, visit);
      return;
    }
    // First-party applications are trusted as Logto trusts them: consented for, even when they send prompt=consent
    // (Logto's SDKs always do).
    const accountId = details.session?.accountId;
    const app = await core.applications.findById(String(details.params.client_id));
    if (details.prompt.name === 'consent' && accountId && app && !app.isThirdParty) {
      await consent(ctx, details, accountId);
      return;
    }
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const missingScopes = [
      ...(missing.missingOIDCScope ?? []),
      ...Object.values(missing.missingResourceScopes ?? {}).flat(),
    ];
    // An explicit prompt=consent re-asks for what was granted before: show the request then.
    const scopes = missingScopes.length
      ? missingScopes
      : String(details.params.scope ?? '')
          .split(' ')
          .filter(Boolean);
    kit.send(
      ctx,
      200,
      consentPage({
        action: visit.at('/consent'),
        abort: visit.at('/abort'),
        csrf: visit.csrf,
        branding: visit.branding,
        scopes,
      }),
      visit,
    );
  });

  passkeyRoutes(router, form, kit, experience, core.settings.baseUrl);
  connectorPageRoutes(router, form, kit, experience, core.settings.baseUrl);
  signInRoutes(router, form, kit, experience);
  signUpRoutes(router, form, kit, experience);
  forgotPasswordRoutes(router, form, kit, experience);
  mfaRoutes(router, form, kit, experience);
  profileRoutes(router, form, kit, experience);

  router.post('/:uid/consent', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const { details } = visit;
    const accountId = details.session?.accountId;
    if (details.prompt.name !== 'consent' || !accountId) {
      kit.send(ctx, 400, messagePage('Nothing to allow', 'No consent is pending for this sign-in.'));
      return;
    }
    await consent(ctx, details, accountId);
  });

  router.post('/:uid/abort', form, async (ctx) => {
    if (!(await kit.submitted(ctx))) return;
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      {
        error: 'access_denied',
        error_description: 'the user cancelled',
      },
      { mergeWithLastSubmission: false },
    );
    ctx.respond = false;
  });

  const pages = composeMiddleware([htmlErrorMiddleware(core.logger), router.routes()]);
  return (ctx, next) => (ctx.path.startsWith('/interaction/') ? pages(ctx, next) : next());
}
