import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import type { Experience } from '../../lib/experience/index.ts';
import { authenticationPayload, registrationPayload } from '../../lib/mfa/webauthn-payloads.ts';
import type { PageKit, Visit } from './kit.ts';
import type { FormProblem } from './layout.ts';
import { passkeyPage } from './passkey-pages.ts';
import { PASSKEY_SCRIPT, PASSKEY_SCRIPT_PATH } from './passkey-script.ts';

/** Where each factor is proved on the pages. */
export const FACTOR_PAGES = { Totp: '/mfa', WebAuthn: '/mfa/passkey', BackupCode: '/mfa/backup-code' } as const;

const noAnswer: FormProblem = {
  message: 'Use the button to answer with your passkey (this needs JavaScript), or use another way to verify.',
};

/** The browser's answer posted in the form's `payload` field, or undefined when it is missing or not one. */
function answerOf<T extends z.ZodType>(kit: PageKit, ctx: Context, schema: T): z.infer<T> | undefined {
  const posted = kit.field(ctx, 'payload', { max: 15_000 });
  if (!posted) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(posted));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Passkeys on the sign-in pages: `/mfa/passkey` proves one of the account's passkeys, `/mfa/passkey/setup`
 * registers one when the account must enrol; each page carries a fresh challenge and posts the browser's answer,
 * then submits again like the other factors' pages. The script they run is served here, from this origin.
 */
export function passkeyRoutes(
  router: Router,
  form: Middleware,
  kit: PageKit,
  experience: Experience,
  baseUrl: string,
): void {
  const script = `${baseUrl}${PASSKEY_SCRIPT_PATH}`;

  router.get('/assets/passkey.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = PASSKEY_SCRIPT;
  });

  /** Pages carrying a challenge: never cached, and allowed to run the passkey script (nothing else). */
  function send(ctx: Context, status: number, html: string, visit: Visit): void {
    kit.send(ctx, status, html, visit, { scripts: [script] });
    ctx.set('Cache-Control', 'no-store');
  }

  async function proveStep(ctx: Context, visit: Visit, status = 200, problem?: FormProblem): Promise<void> {
    const { held } = await experience.mfaStatus(visit.request);
    if (!held.includes('WebAuthn')) {
      kit.redirect(ctx, held[0] ? visit.at(FACTOR_PAGES[held[0]]) : visit.at());
      return;
    }
    const { verificationId, authenticationOptions } = await experience.newWebAuthnAuthentication(visit.request);
    const others = [
      ...(held.includes('Totp') ? [{ href: visit.at(FACTOR_PAGES.Totp), label: 'Use your authenticator app' }] : []),
      ...(held.includes('BackupCode') ? [{ href: visit.at(FACTOR_PAGES.BackupCode), label: 'Use a backup code' }] : []),
    ];
    send(
      ctx,
      status,
      passkeyPage({
        ...visit,
        ceremony: 'get',
        verificationId,
        options: authenticationOptions,
        script,
        others,
        problem,
      }),
      visit,
    );
  }

  async function setupStep(ctx: Context, visit: Visit, status = 200, problem?: FormProblem): Promise<void> {
    const { skippable } = await experience.mfaStatus(visit.request);
    const { verificationId, registrationOptions } = await experience.newWebAuthnRegistration(visit.request);
    const others = visit.settings.mfa.factors.includes('Totp')
      ? [{ href: visit.at('/mfa/setup'), label: 'Use an authenticator app instead' }]
      : [];
    send(
      ctx,
      status,
      passkeyPage({
        ...visit,
        ceremony: 'create',
        verificationId,
        options: registrationOptions,
        script,
        others,
        skippable,
        problem,
      }),
      visit,
    );
  }

  router.get('/:uid/mfa/passkey', async (ctx) => {
    const visit = await kit.atLoginPrompt(ctx);
    if (visit) await proveStep(ctx, visit);
  });

  router.post('/:uid/mfa/passkey', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const verificationId = kit.field(ctx, 'verificationId', { max: 128 });
    const answer = answerOf(kit, ctx, authenticationPayload);
    const again = (status: number, problem: FormProblem) => proveStep(ctx, visit, status, problem);
    if (!answer || !verificationId) {
      await again(400, noAnswer);
      return;
    }
    await kit.recover(
      ctx,
      async () => {
        await experience.verifyWebAuthnAuthentication(visit.request, verificationId, answer);
        await kit.finish(ctx, visit);
      },
      (failure) => again(failure.status, failure.problem),
    );
  });

  router.get('/:uid/mfa/passkey/setup', async (ctx) => {
    const visit = await kit.atLoginPrompt(ctx);
    if (visit) await setupStep(ctx, visit);
  });

  router.post('/:uid/mfa/passkey/setup', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const verificationId = kit.field(ctx, 'verificationId', { max: 128 });
    const answer = answerOf(kit, ctx, registrationPayload);
    const again = (status: number, problem: FormProblem) => setupStep(ctx, visit, status, problem);
    if (!answer || !verificationId) {
      await again(400, noAnswer);
      return;
    }
    await kit.recover(
      ctx,
      async () => {
        await experience.verifyWebAuthnRegistration(visit.request, verificationId, answer);
        await experience.bindMfa(visit.request, 'WebAuthn', verificationId);
        await kit.finish(ctx, visit);
      },
      (failure) => again(failure.status, failure.problem),
    );
  });
}
