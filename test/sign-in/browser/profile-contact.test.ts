import { expect } from 'chai';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { startBrowserHarness, uniqueEmail, type BrowserHarness } from '../../support/browser/harness.ts';

const PASSWORD = 'Lantern-Orbit-42';

describe('browser: "Complete your account" asks a registration for the email sign-up requires, proved by a code (Chromium)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    h = await startBrowserHarness();
    await h.signInExperience({
      signUp: {
        identifiers: ['username'],
        password: true,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'email', verify: true }],
      },
    });
  });
  after(() => h?.close());

  it('refuses a wrong code and an address another account holds on their fields, then registers with the email (User.Created, PostRegister)', async () => {
    const taken = uniqueEmail('taken');
    const holder = await h.running.request('/api/users', { method: 'POST', json: { primaryEmail: taken } });
    expect(holder.status).to.equal(201);
    const username = `profile_${Math.random().toString(36).slice(2, 8)}`;
    const email = uniqueEmail('fresh');
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await page.getByRole('link', { name: 'Create account' }).click();
      await page.getByRole('textbox', { name: 'Username' }).fill(username);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Complete your account' }).waitFor();
      await page.getByText('needs an email address').waitFor();

      // An address another account holds: refused after its code, on the field, and nothing is created.
      const field = page.getByRole('textbox', { name: 'Email', exact: true });
      await field.fill(taken);
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByText(`We sent a code to ${taken}`).waitFor();
      await page.getByRole('textbox', { name: 'Verification code' }).fill(await h.code(taken));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Complete your account' }).waitFor();
      expect(await accessibleDescription(page.getByRole('textbox', { name: 'Email', exact: true }))).to.include(
        'An account already uses this email address.',
      );
      await screenshot(page, 'profile-contact-taken');
      const none = (await (await h.running.request(`/api/users?search=${username}`)).json()) as unknown[];
      expect(none, 'no account yet').to.deep.equal([]);

      // Another address; a wrong code first.
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByText(`We sent a code to ${email}`).waitFor();
      const code = await h.code(email);
      const codeField = page.getByRole('textbox', { name: 'Verification code' });
      await codeField.fill(code === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('The code is not right').waitFor();
      expect(await accessibleDescription(page.getByRole('textbox', { name: 'Verification code' }))).to.include(
        'The code is not right',
      );
      await screenshot(page, 'profile-contact-wrong-code');
      await page.getByRole('textbox', { name: 'Verification code' }).fill(code);
      await page.getByRole('button', { name: 'Continue' }).click();
      const userId = (await flow.finish()).claims()!.sub;
      const user = (await (await h.running.request(`/api/users/${userId}`)).json()) as Record<string, unknown>;
      expect(user).to.include({ username, primaryEmail: email, hasPassword: true });
      await h.delivery('User.Created', userId);
      const registered = await h.delivery('PostRegister', userId);
      expect(registered.user).to.include({ id: userId, primaryEmail: email });
    } finally {
      await screenshot(page, 'profile-contact');
      await context.close();
    }
  });
});
