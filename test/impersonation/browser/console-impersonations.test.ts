import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApplication, createUser, tokenRequest } from '../../support/fixtures.ts';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { eventually } from '../../support/wait.ts';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../../lib/impersonation/grant.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';
import { accountClient } from '../../support/account.ts';

const AGENT_PASSWORD = 'support agent passphrase 5';

interface Impersonation {
  id: string;
  applicationId: string;
  status: string;
  reason: string | null;
}

describe("browser: the console's impersonations, a user's history and the impersonation settings (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();
  let helpDesk: { id: string; secret?: string };
  let billing: { id: string; secret?: string };
  let carol: { id: string };

  /** An impersonation of the user through the application, with a reason, answered as the API lists it. */
  async function impersonate(
    app: { id: string; secret?: string },
    userId: string,
    reason: string,
    actor: Record<string, string> = {},
  ): Promise<string> {
    const created = await running.request('/api/subject-tokens', { method: 'POST', json: { userId, reason } });
    expect(created.status).to.equal(201);
    const { subjectToken } = (await created.json()) as { subjectToken: string };
    const exchanged = await tokenRequest(
      running,
      {
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'openid',
        ...actor,
      },
      app,
    );
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    const [newest] = await running.read<Impersonation[]>(`/api/impersonations?userId=${userId}&page_size=1`);
    return newest!.id;
  }
  const statusOf = async (id: string) => (await running.read<Impersonation>(`/api/impersonations/${id}`)).status;

  before(async () => {
    helpDesk = await createApplication(running, {
      type: 'Traditional',
      name: 'Help desk',
      customClientMetadata: { allowTokenExchange: true },
    });
    billing = await createApplication(running, {
      type: 'Traditional',
      name: 'Billing tool',
      customClientMetadata: { allowTokenExchange: true },
    });
    carol = await createUser(running, [], { name: 'Carol Case', username: 'carol_case' });
  });

  async function rowsOf(page: Page, table: string) {
    return page.getByRole('table', { name: table }).getByRole('row');
  }

  it('lists active impersonations first, filters by application, and revokes one after a confirmation', async () => {
    const ended = await impersonate(helpDesk, carol.id, 'Ticket SUP-1: old');
    expect((await running.request(`/api/impersonations/${ended}/revoke`, { method: 'POST' })).status).to.equal(200);
    const viaHelpDesk = await impersonate(helpDesk, carol.id, 'Ticket SUP-2: invoice missing');
    const viaBilling = await impersonate(billing, carol.id, 'Ticket SUP-3: refund');

    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('link', { name: 'Impersonations', exact: true }).click();
      await page.getByRole('heading', { name: 'Impersonations', level: 1 }).waitFor();
      const active = await rowsOf(page, 'Active');
      const endedRows = await rowsOf(page, 'Ended');
      await active.filter({ hasText: 'Ticket SUP-3: refund' }).waitFor();
      expect(await active.count(), 'header and the two running').to.equal(3);
      // Named as the console names users; names arrive after the rows, which show ids until then.
      await active.filter({ hasText: 'Ticket SUP-3' }).filter({ hasText: 'Carol Case' }).waitFor();
      await endedRows.filter({ hasText: 'Ticket SUP-1: old' }).waitFor();
      expect(await endedRows.filter({ hasText: 'Revoked' }).count()).to.equal(1);
      // The active section comes before the ended one.
      const headings = await page.getByRole('heading', { level: 2 }).allInnerTexts();
      expect(headings.indexOf('Active')).to.be.lessThan(headings.indexOf('Ended'));

      await page.getByRole('combobox', { name: 'Application' }).selectOption({ label: 'Billing tool' });
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      // Header and the Billing tool one, once the filtered list has replaced the whole one.
      await eventually(
        async () => (await active.count()) === 2 && (await active.filter({ hasText: 'Ticket SUP-3' }).count()) === 1,
      );
      // Names arrive after the rows, which show ids until then.
      await active.nth(1).filter({ hasText: 'Billing tool' }).filter({ hasText: 'Active' }).waitFor();
      await page.getByRole('button', { name: 'Clear', exact: true }).click();
      await active.filter({ hasText: 'Ticket SUP-2' }).waitFor();

      // Revoke asks first; Cancel changes nothing.
      const row = active.filter({ hasText: 'Ticket SUP-2: invoice missing' });
      await row.getByRole('button', { name: 'Revoke' }).click();
      const confirm = page.getByRole('dialog', { name: 'Revoke this impersonation?' });
      expect(await confirm.innerText())
        .to.include(helpDesk.id)
        .and.include(carol.id);
      await screenshot(page, 'console-impersonation-revoke-confirm');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect(await statusOf(viaHelpDesk)).to.equal('active');
      await row.getByRole('button', { name: 'Revoke' }).click();
      await confirm.getByRole('button', { name: 'Revoke impersonation' }).click();
      await endedRows.filter({ hasText: 'Ticket SUP-2: invoice missing' }).waitFor();
      expect(await active.filter({ hasText: 'Ticket SUP-2' }).count(), 'moved out of the active list').to.equal(0);
      expect(await statusOf(viaHelpDesk)).to.equal('revoked');
      expect(await statusOf(viaBilling)).to.equal('active');
      await screenshot(page, 'console-impersonations');
    } finally {
      await context.close();
    }
  });

  it("shows a user's impersonation history on their page and revokes all of it after a confirmation", async () => {
    const dave = await createUser(running, [], { name: 'Dave Detail', username: 'dave_detail' });
    const first = await impersonate(helpDesk, dave.id, 'Ticket SUP-10: login loop');
    const agent = await createUser(running, [], { name: 'Sam Support' }, AGENT_PASSWORD);
    const actorToken = await (await accountClient(running)).signIn(agent.username!, AGENT_PASSWORD, 'openid');
    const second = await impersonate(billing, dave.id, 'Ticket SUP-11: card declined', {
      actor_token: actorToken,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl(`/users/${dave.id}`));
      await page.getByRole('heading', { name: 'Dave Detail', level: 1 }).waitFor();
      const history = await rowsOf(page, 'Impersonation history');
      await history.filter({ hasText: 'Ticket SUP-11: card declined' }).waitFor();
      expect(await history.count()).to.equal(3);
      // Newest first; names arrive after the rows, which show ids until then.
      await history
        .nth(1)
        .filter({ hasText: 'Ticket SUP-11' })
        .filter({ hasText: 'Billing tool' })
        .filter({ hasText: 'Sam Support' })
        .waitFor();
      await history.nth(2).filter({ hasText: 'Ticket SUP-10' }).filter({ hasText: 'Help desk' }).waitFor();

      await page.getByRole('button', { name: 'Revoke all impersonations' }).click();
      const confirm = page.getByRole('dialog', { name: 'Revoke every impersonation of Dave Detail?' });
      await confirm.getByRole('button', { name: 'Revoke all' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await history.filter({ hasText: 'Revoked' }).nth(1).waitFor();
      expect(await history.filter({ hasText: 'Active' }).count()).to.equal(0);
      expect([await statusOf(first), await statusOf(second)]).to.deep.equal(['revoked', 'revoked']);
      await page.getByRole('heading', { name: 'Impersonation history' }).scrollIntoViewIfNeeded();
      await screenshot(page, 'console-user-impersonations');
    } finally {
      await context.close();
    }
  });

  it('switches on "Require a reason" and the impersonation email in the sign-in experience', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl('/sign-in-experience'));
      const section = page.getByRole('region', { name: 'Impersonation' });
      await section.getByRole('checkbox', { name: 'Require a reason' }).check();
      await section.getByRole('checkbox', { name: 'Email the user at each impersonation' }).check();
      await section.getByRole('button', { name: 'Save impersonation settings' }).click();
      await section.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const settings = await running.read<{ impersonation: unknown }>('/api/sign-in-exp');
      expect(settings.impersonation).to.deep.equal({ requireReason: true, notifyByEmail: true });
      const refused = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: carol.id } });
      expect(refused.status, 'the setting acts').to.equal(400);
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, 'console-impersonation-settings', { fullPage: false });
    } finally {
      await context.close();
    }
  });
});
