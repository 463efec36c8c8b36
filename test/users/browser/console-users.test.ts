import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApplication, createRole, createUser, tokenRequest } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { CONSOLE_ADMIN, signInToConsole, useConsoleService } from '../../support/browser/console.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

describe("browser: the console's users, impersonation and its log (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();

  async function openUser(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search users' }).fill(name);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
  }

  it('creates an application with "Allow token exchange" and a user, impersonates the user, and the shown token exchanges at /oidc/token', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      // The application, through the console.
      await page.getByRole('button', { name: 'Create application' }).click();
      const create = page.getByRole('dialog', { name: 'Create application' });
      await create.getByRole('textbox', { name: 'Name' }).fill('Support backend');
      await create.getByRole('button', { name: 'Create', exact: true }).click();
      const appId = await create.getByRole('textbox', { name: 'Client ID' }).inputValue();
      const appSecret = await create.getByRole('textbox', { name: 'Client secret' }).inputValue();
      await create.getByRole('button', { name: 'Open application' }).click();
      await page.getByRole('switch', { name: 'Allow token exchange' }).click();
      await page.locator('[role="switch"][aria-checked="true"]').waitFor();

      // The user, through the console.
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('button', { name: 'Create user' }).click();
      const newUser = page.getByRole('dialog', { name: 'Create user' });
      await newUser.getByRole('textbox', { name: 'Username' }).fill('ticket_alice');
      await newUser.getByRole('textbox', { name: 'Name', exact: true }).fill('Alice Ticket');
      await newUser.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Alice Ticket', level: 1 }).waitFor();
      const userId = (await page.locator('dl.facts code').first().innerText()).trim();
      expect((await running.read<{ username: string }>(`/api/users/${userId}`)).username).to.equal('ticket_alice');

      // Impersonate: reason, ticket, application, then the token once with its exchange request.
      await page.getByRole('button', { name: 'Impersonate' }).click();
      const dialog = page.getByRole('dialog', { name: 'Impersonate Alice Ticket' });
      await dialog.getByRole('textbox', { name: 'Reason' }).fill('Ticket SUP-42: checkout fails');
      await dialog.getByRole('textbox', { name: 'Ticket ID' }).fill('SUP-42');
      await dialog.getByRole('combobox', { name: 'Application' }).selectOption({ label: 'Support backend' });
      await screenshot(page, 'console-impersonate-reason', { fullPage: false });
      await dialog.getByRole('button', { name: 'Create subject token' }).click();
      const subjectToken = await dialog.getByRole('textbox', { name: 'Subject token' }).inputValue();
      expect(subjectToken).to.match(/^sub_tk_/);
      const command = await dialog.getByRole('textbox', { name: 'Token exchange request' }).inputValue();
      expect(command)
        .to.include(`-u "${appId}:$CLIENT_SECRET" ${running.baseUrl}/oidc/token`)
        .and.include(`subject_token=${subjectToken}`)
        .and.include(`grant_type=${EXCHANGE}`);
      await screenshot(page, 'console-impersonate');

      // The application exchanges exactly what the page showed, as the command says.
      const exchanged = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN,
          scope: 'openid',
        },
        { id: appId, secret: appSecret },
      );
      expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
      const me = await fetch(`${running.baseUrl}/oidc/me`, {
        headers: { authorization: `Bearer ${String(exchanged.body.access_token)}` },
      });
      expect(((await me.json()) as { sub: string }).sub).to.equal(userId);
      const replay = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN,
          scope: 'openid',
        },
        { id: appId, secret: appSecret },
      );
      expect(replay.status, 'single use').to.equal(400);
      const [recorded] = await running.read<Array<{ reason: string | null }>>(`/api/impersonations?userId=${userId}`);
      expect(recorded?.reason, 'the reason the dialog asked for').to.equal('Ticket SUP-42: checkout fails');

      await dialog.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByRole('textbox', { name: 'Subject token' }).count(), 'shown once').to.equal(0);

      // The log: who created a token for whom, which application exchanged it, and the refused replay.
      await page.getByRole('link', { name: 'Impersonation log' }).click();
      await page.getByRole('textbox', { name: 'User ID' }).fill(userId);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      const rows = page.getByRole('table', { name: 'Impersonation log' }).getByRole('row');
      await rows.filter({ hasText: 'Exchanged' }).waitFor();
      const [admin] = await running.read<Array<{ id: string }>>('/api/users?search=console_admin');
      expect(admin, 'the console admin').to.not.equal(undefined);
      const created = rows.filter({ hasText: 'Token created' });
      expect(await created.innerText())
        .to.include(userId)
        .and.include(admin?.id ?? '');
      expect(await rows.filter({ hasText: 'Exchanged' }).innerText())
        .to.include(appId)
        .and.include('openid');
      // The refused replay names no user (the token was spent), but it belongs to the token's trail.
      await created.getByRole('button', { name: /^Show every record of token/ }).click();
      await rows.filter({ hasText: 'Exchange refused' }).waitFor();
      expect(await rows.count(), 'header, creation, exchange and refusal').to.equal(4);
      await screenshot(page, 'console-impersonation-log');
    } finally {
      await context.close();
    }
  });

  it('searches users, edits a profile, suspends and reactivates, assigns a role, lists organizations, removes a second factor and unlinks an identity', async () => {
    const user = await createUser(running, [], { username: 'profile_bob', name: 'Bob Profile' });
    const role = await createRole(running, []);
    const roleName = (await running.read<{ name: string }>(`/api/roles/${role.id}`)).name;
    const organization = (await (
      await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme Support' } })
    ).json()) as { id: string };
    await running.request(`/api/organizations/${organization.id}/users`, {
      method: 'POST',
      json: { userIds: [user.id] },
    });
    const linked = await running.request(`/api/users/${user.id}/identities/github`, {
      method: 'PUT',
      json: { userId: 'gh-4242' },
    });
    expect(linked.status).to.equal(201);
    const totp = await running.request(`/api/users/${user.id}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'Totp' },
    });
    expect(totp.status).to.equal(201);
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await openUser(page, 'Bob Profile');
      expect(await page.getByRole('table', { name: 'Organizations of this user' }).innerText()).to.include(
        'Acme Support',
      );
      expect(await page.getByRole('table', { name: 'Identities of this user' }).innerText())
        .to.include('github')
        .and.include('gh-4242');

      await page.getByRole('textbox', { name: 'Email' }).fill('bob@example.com');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await running.read<{ primaryEmail: string }>(`/api/users/${user.id}`)).primaryEmail).to.equal(
        'bob@example.com',
      );

      await page.getByRole('button', { name: 'Suspend user' }).click();
      await page.getByRole('button', { name: 'Reactivate user' }).waitFor();
      expect((await running.read<{ isSuspended: boolean }>(`/api/users/${user.id}`)).isSuspended).to.equal(true);
      // A suspended user cannot be impersonated: the refusal shows by the button that asked.
      await createApplication(running, {
        type: 'Traditional',
        name: 'Exchange app',
        customClientMetadata: { allowTokenExchange: true },
      });
      await page.getByRole('button', { name: 'Impersonate' }).click();
      const dialog = page.getByRole('dialog', { name: 'Impersonate Bob Profile' });
      await dialog.getByRole('textbox', { name: 'Reason' }).fill('Ticket SUP-7');
      await dialog.getByRole('button', { name: 'Create subject token' }).click();
      expect(await dialog.getByRole('alert').innerText()).to.include('user.suspended');
      await screenshot(page, 'console-impersonate-suspended');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Reactivate user' }).click();
      await page.getByRole('button', { name: 'Suspend user' }).waitFor();
      expect((await running.read<{ isSuspended: boolean }>(`/api/users/${user.id}`)).isSuspended).to.equal(false);

      await page.getByRole('combobox', { name: 'Role to assign' }).selectOption({ label: roleName });
      await page.getByRole('button', { name: 'Assign role' }).click();
      await page.getByRole('button', { name: `Remove role ${roleName}` }).waitFor();
      expect(
        (await running.read<Array<{ id: string }>>(`/api/users/${user.id}/roles`)).map(
          (held: { id: string }) => held.id,
        ),
      ).to.include(role.id);
      await screenshot(page, 'console-user-details');

      const factors = page.getByRole('table', { name: 'Second factors of this user' });
      expect(await factors.innerText()).to.include('Authenticator app (TOTP)');
      await factors.getByRole('button', { name: 'Remove Authenticator app (TOTP)' }).click();
      await factors.getByText('No second factor.').waitFor();
      expect(await running.read<unknown[]>(`/api/users/${user.id}/mfa-verifications`)).to.deep.equal([]);

      await page.getByRole('button', { name: 'Unlink identity github' }).click();
      await page.getByRole('table', { name: 'Identities of this user' }).getByText('No linked identities.').waitFor();
      expect((await running.read<{ identities: object }>(`/api/users/${user.id}`)).identities).to.deep.equal({});
    } finally {
      await screenshot(page, 'console-user-details-end');
      await context.close();
    }
  });

  it('chooses no role until the admin does, and grants Console admin only once that is confirmed', async () => {
    const user = await createUser(running, [], { username: 'picker_carol', name: 'Carol Picker' });
    const role = await createRole(running, []);
    const roleName = (await running.read<{ name: string }>(`/api/roles/${role.id}`)).name;
    const held = async () =>
      (await running.read<Array<{ id: string }>>(`/api/users/${user.id}/roles`)).map((each) => each.id).sort();
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await openUser(page, 'Carol Picker');
      const picker = page.getByRole('combobox', { name: 'Role to assign' });
      const assign = page.getByRole('button', { name: 'Assign role' });
      expect(await picker.inputValue(), 'nothing chosen').to.equal('');
      expect(await picker.locator('option:checked').innerText()).to.equal('Choose a role…');
      expect(await assign.isDisabled()).to.equal(true);

      // Console admin: a dialog says what it grants; cancelling it grants nothing.
      await picker.selectOption({ label: 'Console admin' });
      await assign.click();
      const confirm = page.getByRole('dialog', { name: 'Make this user a console admin?' });
      await confirm.waitFor();
      expect(await confirm.innerText()).to.include('full access to the management API');
      await screenshot(page, 'console-role-picker-confirm-admin');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      expect(await held()).to.deep.equal([]);

      await assign.click();
      await confirm.getByRole('button', { name: 'Grant Console admin' }).click();
      await page.getByRole('button', { name: 'Remove role Console admin' }).waitFor();
      expect(await held()).to.deep.equal(['console-admin']);
      expect(await picker.inputValue(), 'the choice is cleared once granted').to.equal('');

      // Any other role is assigned as chosen, without a dialog.
      await picker.selectOption({ label: roleName });
      await assign.click();
      await page.getByRole('button', { name: `Remove role ${roleName}` }).waitFor();
      expect(await page.getByRole('dialog').count()).to.equal(0);
      expect(await held()).to.deep.equal(['console-admin', role.id].sort());
    } finally {
      await screenshot(page, 'console-role-picker');
      await context.close();
    }
  });

  it('puts a taken username under the username field when creating a user', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('button', { name: 'Create user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create user' });
      const username = dialog.getByRole('textbox', { name: 'Username' });
      await username.fill(CONSOLE_ADMIN.username);
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await dialog.locator('[aria-invalid="true"]').waitFor();
      expect(await accessibleDescription(username)).to.match(/username/i);
      await screenshot(page, 'console-user-conflict');
    } finally {
      await context.close();
    }
  });
});
