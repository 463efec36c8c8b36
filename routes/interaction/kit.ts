import type { Context } from 'koa';
import type { ServiceCore } from '../../lib/core.ts';
import type { ExperienceRequest } from '../../lib/experience/index.ts';
import { messagePage } from '../../lib/http/html.ts';
import { DomainError, type ErrorCode } from '../../lib/errors.ts';
import { setPageHeaders } from '../../lib/http/page-security.ts';
import type { SignInExperience } from '../../lib/sign-in-experience/schema.ts';
import { createFormTokens } from './csrf.ts';
import { failureOf, type PageFailure } from './form-errors.ts';
import { CSRF_FIELD, brandingStyleSources, type Branding } from './layout.ts';
import { methodsOf, narrowedTo } from './methods.ts';
import { signInHints } from '../../lib/oidc/sign-in-parameters.ts';
import type { PageFrame } from './sign-in-pages.ts';
import { COLLECTED } from './profile.ts';

export type Details = Awaited<ReturnType<ServiceCore['provider']['interactionDetails']>>;

/** One request to a page of an interaction: the interaction, the settings and branding it is shown with. */
export interface Visit extends PageFrame {
  details: Details;
  settings: SignInExperience;
  /** The experience library's handle on this interaction and request. */
  request: ExperienceRequest;
}

/**
 * What every sign-in page handler needs: the interaction behind the request (CSRF-checked for posts), the
 * sign-in experience and branding, the pages' security headers, form fields and the library's refusals
 * turned into pages.
 */
export function createPageKit(
  core: Pick<
    ServiceCore,
    'applications' | 'connectors' | 'experience' | 'organizations' | 'provider' | 'settings' | 'signInExperience'
  >,
) {
  const { provider, applications, organizations, settings: service } = core;
  const tokens = createFormTokens(service.cookieKeys);
  const url = (uid: string, path = '') => `${service.baseUrl}/interaction/${uid}${path}`;

  async function branding(details: Details, settings: SignInExperience): Promise<Branding> {
    const app = await applications.findById(String(details.params.client_id));
    const appName = app?.name ?? 'the application';
    const organization = await organizationOf(details.params);
    // An organization's logos, as Logto's `organization_id` asks, come before the application's and the sign-in
    // experience's; an application's own logo has no dark variant: it replaces both of the sign-in experience's.
    const logos =
      organization?.branding?.logoUrl || organization?.branding?.darkLogoUrl
        ? organization.branding
        : app?.oidcClientMetadata.logoUri
          ? { logoUrl: app.oidcClientMetadata.logoUri }
          : settings.branding;
    const { logoUrl, darkLogoUrl } = logos;
    const { primaryColor, isDarkModeEnabled, darkPrimaryColor } = organization?.color ?? {};
    return {
      appName,
      ...(logoUrl && { logoUrl }),
      ...(darkLogoUrl && { darkLogoUrl }),
      ...(primaryColor && { primaryColor }),
      ...(isDarkModeEnabled && darkPrimaryColor && { darkPrimaryColor }),
      ...(organization?.customCss && { customCss: organization.customCss }),
    };
  }

  /** The organization an authorization request names with Logto's `organization_id`; an unknown one is no organization. */
  async function organizationOf(params: Record<string, unknown>) {
    const id = params.organization_id;
    return typeof id === 'string' && id.length <= 128 ? organizations.findById(id) : undefined;
  }

  /** The connectors the pages offer: the social ones, and the SSO form while single sign-on is on. */
  async function connectorChoices(settings: SignInExperience) {
    const choices = await core.connectors.choices();
    return { ...choices, sso: choices.sso && settings.singleSignOnEnabled };
  }

  async function visitOf(ctx: Context, details: Details): Promise<Visit> {
    const settings = await core.signInExperience.get();
    const hints = signInHints(details.params);
    return {
      details,
      settings,
      methods: narrowedTo(methodsOf(settings), hints.identifiers),
      branding: await branding(details, settings),
      loginHint: hints.loginHint,
      connectors: await connectorChoices(settings),
      csrf: tokens.issue(details.uid),
      at: (path?: string) => url(details.uid, path),
      request: { uid: details.uid, ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined },
    };
  }

  /** Sends a page; its forms post to the service, which redirects to the client's redirect URI. */
  function send(
    ctx: Context,
    status: number,
    html: string,
    visit?: Visit,
    options: { dataImages?: boolean; scripts?: string[] } = {},
  ): void {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = html;
    const redirectUri = visit?.details.params.redirect_uri;
    setPageHeaders(ctx, {
      formTargets: visit ? [service.baseUrl, ...(typeof redirectUri === 'string' ? [redirectUri] : [])] : [],
      images: [visit?.branding.logoUrl, visit?.branding.darkLogoUrl].filter((image) => image !== undefined),
      dataImages: options.dataImages,
      scriptSources: options.scripts,
      styleSources: visit ? brandingStyleSources(visit.branding) : [],
    });
  }

  /** Runs `work`; a refusal of the library goes to `refused`, with `Retry-After` when rate-limited; anything else on. */
  async function recover(
    ctx: Context,
    work: () => Promise<void>,
    refused: (failure: PageFailure) => Promise<void>,
  ): Promise<void> {
    try {
      await work();
    } catch (error) {
      const failure = failureOf(error);
      if (!failure) throw error;
      if (failure.retryAfter !== undefined) ctx.set('Retry-After', String(Math.max(1, Math.ceil(failure.retryAfter))));
      await refused(failure);
    }
  }

  /** `?missing=` of the profile step, when everything a `user.missing_profile` names is what that step collects. */
  function collectable(error: unknown): string | undefined {
    if (!(error instanceof DomainError) || error.code !== 'user.missing_profile') return undefined;
    const missing = (error.data as { missingProfile?: string[] } | undefined)?.missingProfile ?? [];
    const all = missing.length > 0 && missing.every((name) => (COLLECTED as readonly string[]).includes(name));
    return all ? missing.join(',') : undefined;
  }

  function redirect(ctx: Context, location: string): void {
    ctx.redirect(location);
    ctx.status = 303;
  }

  return {
    url,
    send,

    /** The enterprise connectors of an email's domain, as the pages name them. */
    async ssoConnectorsFor(email: string): Promise<Array<{ id: string; name: string }>> {
      const found = await core.experience.ssoConnectorsFor(email);
      return found.map((connector) => ({
        id: connector.id,
        name: connector.branding.displayName ?? connector.connectorName,
      }));
    },

    async visit(ctx: Context): Promise<Visit> {
      return visitOf(ctx, await provider.interactionDetails(ctx.req, ctx.res));
    },

    /** The interaction, when the form carries its CSRF token; otherwise answers 403 and nothing is evaluated. */
    async submitted(ctx: Context): Promise<Visit | undefined> {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (tokens.verify(details.uid, formBody(ctx)[CSRF_FIELD])) return visitOf(ctx, details);
      send(
        ctx,
        403,
        messagePage(
          'Sign-in form not accepted',
          'This form was not sent from the sign-in page, or the page is out of date.',
          { href: url(details.uid), label: 'Back to the sign-in page' },
        ),
      );
      return undefined;
    },

    /** A text field of the posted form; `trim` off for passwords, which are taken as typed. */
    field(ctx: Context, name: string, options: { max?: number; trim?: boolean } = {}): string {
      const value = formBody(ctx)[name];
      if (typeof value !== 'string') return '';
      const text = options.trim === false ? value : value.trim();
      return text.slice(0, options.max ?? 320);
    },

    /** Sends the browser on with a 303, so that reloading the next page does not post the form again. */
    redirect,

    /**
     * Submits the experience and sends the browser on: back into the OIDC flow, or to the second-factor step the
     * account still owes (prove a factor, enrol one, keep backup codes), whose pages submit again once it is done.
     */
    async finish(ctx: Context, visit: Visit): Promise<void> {
      try {
        redirect(ctx, (await core.experience.submit(visit.request)).redirectTo);
      } catch (error) {
        const step = error instanceof DomainError ? SECOND_FACTOR_STEPS[error.code] : undefined;
        if (step === undefined) throw error;
        redirect(ctx, url(visit.details.uid, step));
      }
    },

    /**
     * Runs the library calls of a form post; a refusal comes back as the form's page (`render`), with its
     * status and, when rate-limited, `Retry-After`. Anything else goes on to the error middleware.
     */
    async attempt(
      ctx: Context,
      visit: Visit,
      render: (failure: PageFailure) => string | Promise<string>,
      work: () => Promise<void>,
    ): Promise<void> {
      // A registration or sign-in stopped for a username or password goes to the step that asks for them.
      await recover(
        ctx,
        async () => {
          try {
            await work();
          } catch (error) {
            const missing = collectable(error);
            if (missing === undefined) throw error;
            redirect(ctx, url(visit.details.uid, `/profile?missing=${missing}`));
          }
        },
        async (failure) => send(ctx, failure.status, await render(failure), visit),
      );
    },

    /** Like `attempt`, for pages that answer a refusal their own way (`refused`). */
    recover,

    /** The interaction of a second-factor page, when it is still at its login prompt (otherwise back to its start). */
    async atLoginPrompt(ctx: Context): Promise<Visit | undefined> {
      const visit = await visitOf(ctx, await provider.interactionDetails(ctx.req, ctx.res));
      if (visit.details.prompt.name === 'login') return visit;
      redirect(ctx, visit.at());
      return undefined;
    },

    /** A problem the page finds in the form itself, before the library is asked. */
    reject(ctx: Context, visit: Visit, html: string): void {
      send(ctx, 400, html, visit);
    },
  };
}

export type PageKit = ReturnType<typeof createPageKit>;

/** Where submit's refusals of the MFA step send the browser. */
const SECOND_FACTOR_STEPS: Partial<Record<ErrorCode, string>> = {
  'session.mfa.require_mfa_verification': '/mfa',
  'user.missing_mfa': '/mfa/setup',
  'session.mfa.backup_code_required': '/mfa/backup-codes',
};

function formBody(ctx: Context): Record<string, unknown> {
  return (ctx.request.body ?? {}) as Record<string, unknown>;
}
