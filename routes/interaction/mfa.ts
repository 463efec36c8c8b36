import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import type { PageKit, Visit } from './kit.ts';
import type { FormProblem } from './layout.ts';
import { backupCodesPage, secondFactorPage, setupPage } from './mfa-pages.ts';
import { FACTOR_PAGES } from './passkeys.ts';

/**
 * The second-factor step of the sign-in pages, through the same library calls as the Experience API: after the
 * password or code step, `kit.finish` sends an account that owes a factor here. `/mfa` asks for the app's code
 * (`/mfa/backup-code` for a backup code); `/mfa/setup` shows a new key once and confirms it with a code;
 * `/mfa/backup-codes` shows new backup codes once. Each success submits again.
 */
export function mfaRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  /** Pages that show a secret are never cached. */
  function sendSecret(ctx: Context, html: string, visit: Visit, dataImages = false): void {
    kit.send(ctx, 200, html, visit, { dataImages });
    ctx.set('Cache-Control', 'no-store');
  }

  const code = (ctx: Context) => kit.field(ctx, 'code', { max: 64 });
  const enterCode: FormProblem = { field: 'code', message: 'Enter the code.' };

  for (const factor of ['Totp', 'BackupCode'] as const) {
    const path = factor === 'Totp' ? '/:uid/mfa' : '/:uid/mfa/backup-code';
    const pageOf = async (visit: Visit, problem?: FormProblem) => {
      const { held } = await experience.mfaStatus(visit.request);
      return secondFactorPage({
        ...visit,
        factor,
        other: held.includes(factor === 'Totp' ? 'BackupCode' : 'Totp'),
        passkey: held.includes('WebAuthn'),
        problem,
      });
    };

    router.get(path, async (ctx) => {
      const visit = await kit.atLoginPrompt(ctx);
      if (!visit) return;
      const { held } = await experience.mfaStatus(visit.request);
      if (!held.includes(factor)) {
        kit.redirect(ctx, held[0] ? visit.at(FACTOR_PAGES[held[0]]) : visit.at());
        return;
      }
      kit.send(ctx, 200, await pageOf(visit), visit);
    });

    router.post(path, form, async (ctx) => {
      const visit = await kit.submitted(ctx);
      if (!visit) return;
      const typed = code(ctx);
      if (!typed) {
        kit.reject(ctx, visit, await pageOf(visit, enterCode));
        return;
      }
      await kit.attempt(
        ctx,
        visit,
        (failure) => pageOf(visit, failure.problem),
        async () => {
          if (factor === 'Totp') await experience.verifyTotp(visit.request, typed);
          else await experience.verifyBackupCode(visit.request, typed);
          await kit.finish(ctx, visit);
        },
      );
    });
  }

  router.get('/:uid/mfa/setup', async (ctx) => {
    const visit = await kit.atLoginPrompt(ctx);
    if (!visit) return;
    const { factors } = visit.settings.mfa;
    if (!factors.includes('Totp') && factors.includes('WebAuthn')) {
      kit.redirect(ctx, visit.at('/mfa/passkey/setup'));
      return;
    }
    const { skippable } = await experience.mfaStatus(visit.request);
    const { verificationId, secret, keyUri, secretQrCode } = await experience.newTotpSecret(visit.request);
    const passkeySetup = factors.includes('WebAuthn') ? visit.at('/mfa/passkey/setup') : undefined;
    sendSecret(
      ctx,
      setupPage({ ...visit, verificationId, enrolment: { secret, keyUri, secretQrCode }, skippable, passkeySetup }),
      visit,
      true,
    );
  });

  router.post('/:uid/mfa/setup', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const verificationId = kit.field(ctx, 'verificationId', { max: 128 });
    const again = async (problem: FormProblem) =>
      setupPage({
        ...visit,
        verificationId,
        skippable: (await experience.mfaStatus(visit.request)).skippable,
        problem,
      });
    const typed = code(ctx);
    if (!typed || !verificationId) {
      kit.reject(ctx, visit, await again(enterCode));
      return;
    }
    await kit.attempt(
      ctx,
      visit,
      (failure) => again(failure.problem),
      async () => {
        await experience.verifyTotp(visit.request, typed, verificationId);
        await experience.bindMfa(visit.request, 'Totp', verificationId);
        await kit.finish(ctx, visit);
      },
    );
  });

  router.post('/:uid/mfa/skip', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    await experience.skipMfa(visit.request);
    await kit.finish(ctx, visit);
  });

  router.get('/:uid/mfa/backup-codes', async (ctx) => {
    const visit = await kit.atLoginPrompt(ctx);
    if (!visit) return;
    const { verificationId, codes } = await experience.newBackupCodes(visit.request);
    sendSecret(ctx, backupCodesPage({ ...visit, verificationId, codes }), visit);
  });

  router.post('/:uid/mfa/backup-codes', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    await experience.bindMfa(visit.request, 'BackupCode', kit.field(ctx, 'verificationId', { max: 128 }));
    await kit.finish(ctx, visit);
  });
}
