import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { DomainError } from '../../lib/errors.ts';
import type { Experience, ExperienceState, InteractionEvent } from '../../lib/experience/index.ts';
import { codePage, type CodeView } from './sign-in-pages.ts';
import type { PageFailure } from './form-errors.ts';
import type { PageKit, Visit } from './kit.ts';
import type { FormProblem } from './layout.ts';
import { isProblem, parseRecipient, type CodeIdentifierType } from './methods.ts';

/** The code verification an experience is waiting on: the latest one sent. */
export type PendingCode = ExperienceState['verificationRecords'][number];

/**
 * A flow that sends a code, then asks for it (sign-in by code, sign-up by email or phone, forgot password):
 * `POST {path}/send-code` starts the experience and sends the code, `GET {path}/code` asks for it,
 * `POST {path}/code` verifies it and hands over to `finish`, `POST {path}/resend` sends a new one.
 */
export interface CodeFlow extends Omit<CodeStep, 'pendingOf'> {
  event: InteractionEvent;
  recipients(visit: Visit): CodeIdentifierType[];
  /** The page with the form that sends the first code, showing a problem with it. */
  startPage(visit: Visit, problem?: FormProblem, identifier?: string): string;
}

/**
 * The pages that ask for a code already sent: `GET {path}/code`, `POST {path}/code` (verified, then `finish`),
 * `POST {path}/resend`. Their forms post with the query string they were opened with.
 */
export interface CodeStep {
  path: string;
  /** The code this step asks for, when the experience is at this step. */
  pendingOf(state: ExperienceState): PendingCode | undefined;
  /** Where the step begins, for a browser that reaches it without a pending code. */
  startUrl(visit: Visit, ctx: Context): string;
  view(visit: Visit, ctx: Context): Pick<CodeView, 'heading' | 'submit' | 'password' | 'back'>;
  /** How a refusal reads on this step's pages, when it says more than the shared wording (a way out). */
  problemOf?(visit: Visit, failure: PageFailure): FormProblem;
  /** What follows a verified code: identification, the profile, the submission, and the redirect. */
  finish(ctx: Context, visit: Visit, state: ExperienceState, pending: PendingCode, password: string): Promise<void>;
}

/** Where a pending code went; only email and phone verifications are ever pending. */
export function recipientOf(pending: PendingCode): { type: CodeIdentifierType; value: string } {
  return { type: pending.identifier.type === 'phone' ? 'phone' : 'email', value: pending.identifier.value };
}

export function codeFlowRoutes(
  router: Router,
  form: Middleware,
  kit: PageKit,
  experience: Experience,
  flow: CodeFlow,
): void {
  router.post(`/:uid${flow.path}/send-code`, form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const identifier = kit.field(ctx, 'identifier');
    const recipient = parseRecipient(identifier, flow.recipients(visit));
    if (isProblem(recipient)) {
      kit.reject(ctx, visit, flow.startPage(visit, recipient, identifier));
      return;
    }
    await kit.attempt(
      ctx,
      visit,
      (failure) => flow.startPage(visit, failure.problem, identifier),
      async () => {
        await experience.start(visit.request, flow.event);
        await experience.sendCode(visit.request, recipient, flow.event);
        kit.redirect(ctx, visit.at(`${flow.path}/code`));
      },
    );
  });

  codeStepRoutes(router, form, kit, experience, {
    ...flow,
    pendingOf: (state) =>
      state.interactionEvent === flow.event
        ? state.verificationRecords.findLast((record) => record.type !== 'Password')
        : undefined,
  });
}

export function codeStepRoutes(
  router: Router,
  form: Middleware,
  kit: PageKit,
  experience: Experience,
  flow: CodeStep,
): void {
  /** The experience and its pending code, or undefined when there is none (the step starts over). */
  async function pendingOf(visit: Visit): Promise<{ state: ExperienceState; pending: PendingCode } | undefined> {
    let state: ExperienceState;
    try {
      state = await experience.state(visit.request);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'session.interaction_not_found') return undefined;
      throw error;
    }
    const pending = flow.pendingOf(state);
    return pending ? { state, pending } : undefined;
  }

  function page(ctx: Context, visit: Visit, pending: PendingCode, problem?: FormProblem, notice?: string): string {
    return codePage({
      ...visit,
      ...flow.view(visit, ctx),
      recipient: pending.identifier.value,
      verified: pending.verified,
      action: visit.at(`${flow.path}/code${ctx.search}`),
      resend: visit.at(`${flow.path}/resend${ctx.search}`),
      problem,
      notice,
    });
  }

  router.get(`/:uid${flow.path}/code`, async (ctx) => {
    const visit = await kit.visit(ctx);
    const found = await pendingOf(visit);
    if (!found) {
      kit.redirect(ctx, flow.startUrl(visit, ctx));
      return;
    }
    kit.send(ctx, 200, page(ctx, visit, found.pending), visit);
  });

  /** A posted code form's visit and pending code; without one, the browser goes back to the flow's start. */
  async function submittedWithPending(ctx: Parameters<typeof kit.submitted>[0]) {
    const visit = await kit.submitted(ctx);
    if (!visit) return undefined;
    const found = await pendingOf(visit);
    if (!found) {
      kit.redirect(ctx, flow.startUrl(visit, ctx));
      return undefined;
    }
    return { visit, ...found };
  }

  router.post(`/:uid${flow.path}/resend`, form, async (ctx) => {
    const submitted = await submittedWithPending(ctx);
    if (!submitted) return;
    const { visit, pending, state } = submitted;
    await kit.attempt(
      ctx,
      visit,
      (failure) => page(ctx, visit, pending, failure.problem),
      async () => {
        await experience.sendCode(visit.request, recipientOf(pending), state.interactionEvent);
        kit.send(
          ctx,
          200,
          page(ctx, visit, pending, undefined, 'A new code is on its way. The earlier one no longer works.'),
          visit,
        );
      },
    );
  });

  router.post(`/:uid${flow.path}/code`, form, async (ctx) => {
    const submitted = await submittedWithPending(ctx);
    if (!submitted) return;
    const { visit, pending } = submitted;
    const code = kit.field(ctx, 'code', { max: 64 }).replace(/\s/g, '');
    const password = kit.field(ctx, 'password', { max: 256, trim: false });
    if (!pending.verified && !code) {
      kit.reject(ctx, visit, page(ctx, visit, pending, { field: 'code', message: 'Enter the code from the message.' }));
      return;
    }
    if (flow.view(visit, ctx).password && !password) {
      kit.reject(ctx, visit, page(ctx, visit, pending, { field: 'password', message: 'Enter a password.' }));
      return;
    }
    const problemOf = (failure: PageFailure) => flow.problemOf?.(visit, failure) ?? failure.problem;
    await kit.attempt(
      ctx,
      visit,
      async (failure) => page(ctx, visit, (await pendingOf(visit))?.pending ?? pending, problemOf(failure)),
      async () => {
        if (!pending.verified) {
          await experience.verifyCode(visit.request, recipientOf(pending), pending.id, code);
        }
        await flow.finish(ctx, visit, await experience.state(visit.request), pending, password);
      },
    );
  });
}
