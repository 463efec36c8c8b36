import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { DomainError } from '../../lib/errors.ts';
import type { Experience } from '../../lib/experience/index.ts';
import type { ConnectorType } from '../../lib/experience/connectors.ts';
import { failureOf } from './form-errors.ts';
import type { PageKit, Visit } from './kit.ts';
import { connectorProblemPage, continuePage, linkPage, ssoChoicePage } from './connector-pages.ts';
import { parseRecipient, isProblem } from './methods.ts';
import { signInPage } from './sign-in-pages.ts';

/** Names the interaction a provider's callback belongs to: set when the browser is sent to the provider. */
const CONNECTOR_COOKIE = 'identity_connector';
const KINDS = { social: 'Social', sso: 'EnterpriseSso' } as const satisfies Record<string, ConnectorType>;
type Kind = keyof typeof KINDS;

/** When the email's domain signs in by SSO, answers the page saying where to, and says so. */
export async function answerSsoChoice(ctx: Context, kit: PageKit, visit: Visit, email: string): Promise<boolean> {
  const connectors = await kit.ssoConnectorsFor(email);
  if (!connectors.length) return false;
  kit.send(ctx, 200, ssoChoicePage(visit, email, connectors), visit);
  return true;
}

/**
 * Sign-in through social and enterprise connectors on the pages, on the experience library as the Experience
 * API does it. "Continue with …" sends the browser to the provider; its callback comes back to
 * `/interaction/callback/social` (or `/sso`), one URL to register at every provider, bound to the interaction by
 * a signed cookie and to the sign-in by its state; then the account is signed in, linked or created.
 */
export function connectorPageRoutes(
  router: Router,
  form: Middleware,
  kit: PageKit,
  experience: Experience,
  baseUrl: string,
): void {
  const callbackPath = `${new URL(baseUrl).pathname.replace(/\/+$/, '')}/interaction/callback`;
  const callbackUrl = (kind: Kind) => `${baseUrl}/interaction/callback/${kind}`;

  async function sendToProvider(ctx: Context, visit: Visit, kind: Kind, connectorId: string): Promise<void> {
    await kit.attempt(
      ctx,
      visit,
      (failure) => connectorProblemPage(visit, failure.problem),
      async () => {
        await experience.start(visit.request, visit.methods.canSignIn ? 'SignIn' : 'Register');
        const { authorizationUri } = await experience.connectorAuthorization(visit.request, KINDS[kind], connectorId, {
          redirectUri: callbackUrl(kind),
        });
        ctx.cookies.set(CONNECTOR_COOKIE, visit.details.uid, {
          signed: true,
          httpOnly: true,
          sameSite: 'lax',
          path: callbackPath,
          overwrite: true,
          expires: new Date((visit.details.exp ?? Math.floor(Date.now() / 1000) + 600) * 1000),
        });
        kit.redirect(ctx, authorizationUri);
      },
    );
  }

  // Before the `/:uid/…` pages, which would otherwise read "callback" as an interaction.
  router.get('/callback/:kind', async (ctx) => {
    const kind = ctx.params.kind as Kind;
    const uid = ctx.cookies.get(CONNECTOR_COOKIE, { signed: true });
    const frame = { at: (path?: string) => kit.url(uid ?? '', path), branding: { appName: 'the application' } };
    if (!Object.hasOwn(KINDS, kind) || !uid || uid.length > 128) {
      kit.send(
        ctx,
        400,
        connectorProblemPage(frame, {
          message: 'This sign-in has expired. Go back to the application and start again.',
        }),
      );
      return;
    }
    const params = Object.fromEntries(
      Object.entries(ctx.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const request = { uid, ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined };
    try {
      const { verificationId } = await experience.verifyConnector(request, KINDS[kind], undefined, params);
      const next = kit.url(uid, `/connector/${verificationId}`);
      ctx.set('Refresh', `0;url=${next}`);
      kit.send(ctx, 200, continuePage(next));
    } catch (error) {
      const failure = failureOf(error);
      if (!failure) throw error;
      kit.send(ctx, failure.status, connectorProblemPage(frame, failure.problem));
    }
  });

  router.get('/:uid/social/:connectorId', async (ctx) =>
    sendToProvider(ctx, await kit.visit(ctx), 'social', ctx.params.connectorId!),
  );
  router.get('/:uid/sso/:connectorId', async (ctx) =>
    sendToProvider(ctx, await kit.visit(ctx), 'sso', ctx.params.connectorId!),
  );

  // Logto's `direct_sign_in`: the interaction opens here and goes on to the connector; one that does not exist
  // leaves the sign-in page to choose from.
  router.get('/:uid/direct/:method/:target', async (ctx) => {
    const visit = await kit.visit(ctx);
    const { method, target } = ctx.params as { method: string; target: string };
    if (visit.details.prompt.name === 'login' && method === 'sso') {
      await sendToProvider(ctx, visit, 'sso', target);
      return;
    }
    const social =
      method === 'social' && visit.details.prompt.name === 'login'
        ? (visit.connectors?.social.find((connector) => connector.target === target) ??
          visit.connectors?.social.find((connector) => connector.id === target))
        : undefined;
    if (social) await sendToProvider(ctx, visit, 'social', social.id);
    else kit.redirect(ctx, visit.at());
  });

  router.post('/:uid/sso', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const identifier = kit.field(ctx, 'identifier');
    const again = (message: string) =>
      signInPage({ ...visit, failed: 'sso', problem: { field: 'identifier', message }, identifier });
    const email = parseRecipient(identifier, ['email']);
    if (isProblem(email)) {
      kit.reject(ctx, visit, again('Enter your work email address.'));
      return;
    }
    if (!(await answerSsoChoice(ctx, kit, visit, email.value)))
      kit.send(ctx, 422, again('No single sign-on is set up for this email domain.'), visit);
  });

  /** After the callback: sign in the account holding the identity, link it on request, or create an account. */
  router.get('/:uid/connector/:verificationId', async (ctx) => {
    const visit = await kit.visit(ctx);
    const verificationId = ctx.params.verificationId!;
    await kit.attempt(
      ctx,
      visit,
      (failure) => connectorProblemPage(visit, failure.problem),
      async () => {
        try {
          await experience.identify(visit.request, verificationId);
        } catch (error) {
          if (!(error instanceof DomainError) || error.code !== 'user.identity_not_exist') throw error;
          const relatedUser = (error.data as { relatedUser?: string } | undefined)?.relatedUser;
          if (relatedUser) {
            kit.send(
              ctx,
              200,
              linkPage(visit, {
                email: relatedUser,
                link: visit.at(`/connector/${verificationId}/link`),
                ...(visit.methods.connectorRegistration && {
                  register: visit.at(`/connector/${verificationId}/register`),
                }),
              }),
              visit,
            );
            return;
          }
          if (!visit.methods.connectorRegistration) throw error;
          await experience.setEvent(visit.request, 'Register');
          await experience.identify(visit.request, verificationId);
        }
        await kit.finish(ctx, visit);
      },
    );
  });

  router.post('/:uid/connector/:verificationId/link', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    await kit.attempt(
      ctx,
      visit,
      (failure) => connectorProblemPage(visit, failure.problem),
      async () => {
        await experience.identify(visit.request, ctx.params.verificationId!, { linkSocialIdentity: true });
        await kit.finish(ctx, visit);
      },
    );
  });

  router.post('/:uid/connector/:verificationId/register', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    await kit.attempt(
      ctx,
      visit,
      (failure) => connectorProblemPage(visit, failure.problem),
      async () => {
        await experience.setEvent(visit.request, 'Register');
        await experience.identify(visit.request, ctx.params.verificationId!);
        await kit.finish(ctx, visit);
      },
    );
  });
}
