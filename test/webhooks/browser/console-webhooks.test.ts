import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { eventually } from '../../support/wait.ts';
import { verifyDelivery } from '../../support/webhooks/hooks.ts';
import { Receiver } from '../../support/webhooks/receiver.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe("browser: the console's webhooks and their deliveries (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService({ WEBHOOK_RETRY_DELAYS_MS: '50,100' });
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
  });
  after(() => receiver?.close());

  /** Signs in, goes to Webhooks as a person would, and fills the create dialog's name and endpoint. */
  async function openCreateDialog(page: Page, name: string, endpoint: string) {
    await signInToConsole(page, running.consoleUrl());
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create webhook' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    await dialog.getByRole('textbox', { name: 'Endpoint URL' }).fill(endpoint);
    return dialog;
  }

  it("registers a webhook to a receiver, shows a user creation's delivery on its own, and resends it (the receiver gets it twice)", async () => {
    receiver.script('/console-hook', () => ({ status: 200, body: 'thanks from the receiver' }));
    const { page, context } = await freshPage(chromium.browser());
    try {
      const dialog = await openCreateDialog(page, 'Support sync', receiver.url('/console-hook'));
      // Nothing picked yet: the API's objection appears under the event picker.
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      const events = dialog.getByRole('group', { name: 'Events', exact: true });
      await events.and(page.locator('[aria-describedby]')).waitFor();
      expect(await accessibleDescription(events)).to.match(/event/i);
      await screenshot(page, 'console-webhook-missing-events');
      expect(await events.getByRole('group', { name: 'Data events' }).count()).to.equal(1);
      expect(await events.getByRole('group', { name: 'Interaction events' }).count()).to.equal(1);
      expect(await events.getByRole('group', { name: 'Exception events' }).count()).to.equal(1);
      await events.getByRole('checkbox', { name: 'User.Created', exact: true }).check();
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      const signingKey = await dialog.getByRole('textbox', { name: 'Signing key' }).inputValue();
      expect(signingKey).to.match(/^whsec_/);
      await dialog.getByRole('button', { name: 'Open webhook' }).click();
      await page.getByRole('heading', { name: 'Support sync', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Deliveries' });
      await table.getByText('No deliveries yet.').waitFor();

      // A user is created elsewhere: the delivery appears without touching the page.
      const created = await running.request('/api/users', { method: 'POST', json: { username: 'hooked_user' } });
      expect(created.status).to.equal(201);
      const row = table.getByRole('row').filter({ hasText: 'User.Created' });
      await row.filter({ hasText: 'Succeeded' }).waitFor();
      const text = await row.innerText();
      expect(text)
        .to.include('200')
        .and.include('thanks from the receiver')
        .and.match(/\d+ ms/);
      expect(receiver.requests('/console-hook')).to.have.length(1);
      await screenshot(page, 'console-deliveries');

      await row.getByRole('button', { name: /^Resend User\.Created delivery/ }).click();
      await page.getByRole('status').filter({ hasText: 'Resent as a new delivery' }).waitFor();
      await eventually(() => receiver.requests('/console-hook').length === 2, {
        what: 'the resent delivery at the receiver',
      });
      const [first, second] = receiver.requests('/console-hook').map((request) => verifyDelivery(request, signingKey));
      expect(second!.data).to.deep.equal(first!.data);
      expect(second!.data.username).to.equal('hooked_user');
      await table.getByRole('row').filter({ hasText: '(resent)' }).filter({ hasText: 'Succeeded' }).waitFor();
      expect(await table.getByRole('row').filter({ hasText: 'User.Created' }).count()).to.equal(2);
      await screenshot(page, 'console-deliveries-resent');
    } finally {
      await context.close();
    }
  });

  it('sends a test to the endpoint, rotates the signing key once, and says why a test failed', async () => {
    receiver.script('/console-test', (nth) => (nth === 1 ? { status: 200 } : { status: 500, body: 'broken today' }));
    const created = await running.request('/api/hooks', {
      method: 'POST',
      json: { name: 'Test target', events: ['User.Created'], config: { url: receiver.url('/console-test') } },
    });
    const hook = (await created.json()) as { id: string };
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl(`/webhooks/${hook.id}`));
      await page.getByRole('heading', { name: 'Test target', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.getByRole('status').filter({ hasText: 'Test sent' }).waitFor();
      expect(receiver.requests('/console-test')).to.have.length(1);
      await page.getByRole('button', { name: 'Send test' }).click();
      expect(await page.getByRole('alert').filter({ hasText: 'hook.' }).innerText()).to.include('500');

      await page.getByRole('button', { name: 'Rotate signing key' }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the signing key?' })
        .getByRole('button', { name: 'Rotate', exact: true })
        .click();
      const key = await page.getByRole('textbox', { name: 'New signing key' }).inputValue();
      expect(key).to.match(/^whsec_/);
      await screenshot(page, 'console-webhook-settings');
      await page.reload();
      await page.getByRole('heading', { name: 'Test target', level: 1 }).waitFor();
      expect(await page.getByRole('textbox', { name: 'New signing key' }).count(), 'shown once').to.equal(0);
    } finally {
      await screenshot(page, 'console-webhook-after-reload');
      await context.close();
    }
  });

  it("creates an Ed25519 webhook showing its public key, shows each delivery's sequence and version, and replays a window", async () => {
    receiver.script('/console-ed', () => ({ status: 200, body: 'ok' }));
    const { page, context } = await freshPage(chromium.browser());
    try {
      const dialog = await openCreateDialog(page, 'Ed25519 sync', receiver.url('/console-ed'));
      await dialog
        .getByRole('group', { name: 'Events', exact: true })
        .getByRole('checkbox', { name: 'User.Created', exact: true })
        .check();
      await dialog
        .getByRole('group', { name: 'Events', exact: true })
        .getByRole('checkbox', { name: 'User.Data.Updated', exact: true })
        .check();
      await dialog.getByRole('combobox', { name: 'Signature' }).selectOption('ed25519');
      await dialog.getByRole('checkbox', { name: "Deliver each entity's events in order" }).check();
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      const publicKey = await dialog.getByRole('textbox', { name: 'Public key' }).inputValue();
      expect(publicKey).to.match(/^whpk_/);
      await dialog.getByRole('button', { name: 'Open webhook' }).click();
      await page.getByRole('heading', { name: 'Ed25519 sync', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Signature: Ed25519' }).waitFor();
      expect(await page.getByRole('textbox', { name: 'Public key' }).inputValue()).to.equal(publicKey);
      expect(await page.getByRole('checkbox', { name: "Deliver each entity's events in order" }).isChecked()).to.equal(
        true,
      );
      const hookId = new URL(page.url()).pathname.split('/').pop()!;
      const stored = (await (await running.request(`/api/hooks/${hookId}`)).json()) as {
        ordering: string;
        signature: string;
      };
      expect(stored).to.include({ ordering: 'entity', signature: 'ed25519' });

      // The replay field takes minutes: its window starts at the minute these events are made in, so that a minute
      // turning over before the replay cannot leave them out (it may hold events of the tests before).
      const since = new Date();
      since.setSeconds(0, 0);
      const created = await running.request('/api/users', { method: 'POST', json: { username: 'versioned_user' } });
      const { id } = (await created.json()) as { id: string };
      await running.request(`/api/users/${id}`, { method: 'PATCH', json: { name: 'Versioned' } });
      const table = page.getByRole('table', { name: 'Deliveries' });
      const updated = table.getByRole('row').filter({ hasText: 'User.Data.Updated' }).filter({ hasText: 'Succeeded' });
      await updated.waitFor();
      const headers = await table.getByRole('columnheader').allInnerTexts();
      const cells = await updated.getByRole('cell').allInnerTexts();
      expect(cells[headers.indexOf('Version')], JSON.stringify([headers, cells])).to.equal('2');
      const sequence = Number(cells[headers.indexOf('Sequence')]);
      expect(sequence).to.be.greaterThan(0);

      // The section is a region named by its heading; the table inside it is a region of the same name.
      const replays = page.getByRole('region', { name: 'Replays' }).first();
      const local = new Date(since.getTime() - since.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      const listed = (await (
        await running.request('/api/events?types=User.Created,User.Data.Updated&limit=500')
      ).json()) as { events: Array<{ createdAt: string }> };
      const inWindow = listed.events.filter((event) => Date.parse(event.createdAt) >= since.getTime()).length;
      await replays.getByLabel('Replay events since').fill(local);
      await replays.getByRole('button', { name: 'Start replay' }).click();
      const replayRow = page.getByRole('table', { name: 'Replays' }).getByRole('row').filter({ hasText: 'Completed' });
      await replayRow.waitFor();
      expect(await replayRow.getByRole('cell').last().innerText()).to.equal(String(inWindow));
      await table.getByRole('row').filter({ hasText: '(replay)' }).filter({ hasText: 'Succeeded' }).nth(1).waitFor();
      await eventually(() => receiver.requests('/console-ed').length === 2 + inWindow, {
        what: 'the replayed deliveries',
      });
      const ids = receiver.requests('/console-ed').map((request) => String(request.headers['webhook-id']));
      // This hook's two deliveries came again under their own webhook-ids.
      expect(ids.slice(2)).to.include.members(ids.slice(0, 2));
      await screenshot(page, 'console-webhook-ed25519-replay');
    } finally {
      await context.close();
    }
  });
});
