import { expect } from 'chai';
import { createApplication, createResource, createRole, createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, isFocused, screenshot, useChromium } from '../../support/chromium.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe("browser: the console's roles and permissions and API resources pages (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('creates an API resource, refuses a reserved scope name at its field, and adds a scope', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl('/resources'));
      await page.getByRole('heading', { name: 'API resources', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create API resource' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create API resource' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Orders API');
      await dialog.getByRole('textbox', { name: 'API identifier' }).fill('https://orders.example.com');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Orders API', level: 1 }).waitFor();

      const scopeName = page.getByRole('textbox', { name: 'Scope name' });
      await scopeName.fill('openid');
      await page.getByRole('button', { name: 'Add scope' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(scopeName)).to.include('reserved for OpenID Connect');

      await scopeName.fill('read:orders');
      await page.getByRole('textbox', { name: 'Scope description' }).fill('Read every order');
      await page.getByRole('button', { name: 'Add scope' }).click();
      await page
        .getByRole('table', { name: 'Scopes of this API resource' })
        .getByRole('cell', { name: 'read:orders', exact: true })
        .waitFor();
      expect(await scopeName.getAttribute('aria-invalid')).to.equal(null);
      await screenshot(page, 'console-resource-scope');

      const resources = await running.read<
        Array<{ id: string; name: string; indicator: string; scopes: Array<{ name: string; description: string }> }>
      >('/api/resources?includeScopes=true');
      const created = resources.find((resource) => resource.indicator === 'https://orders.example.com');
      expect(created?.name).to.equal('Orders API');
      expect(created?.scopes.map(({ name, description }) => ({ name, description }))).to.deep.equal([
        { name: 'read:orders', description: 'Read every order' },
      ]);
    } finally {
      await context.close();
    }
  });

  it('creates a role, gives it a permission and assigns it to a user, readable at phone width', async () => {
    const { scopes } = await createResource(running, 'https://billing.example.com', ['invoices:write']);
    const user = await createUser(running, [], { name: 'Rita Role' });
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await signInToConsole(page, running.consoleUrl('/roles'));
      await page.getByRole('heading', { name: 'Roles and permissions', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create role' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create role' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Billing clerk');
      await dialog.getByRole('textbox', { name: 'Description' }).fill('Writes invoices');
      await dialog.getByRole('combobox', { name: 'Type' }).selectOption('User');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Billing clerk', level: 1 }).waitFor();

      await page
        .getByRole('combobox', { name: 'Permission to add' })
        .selectOption({ label: 'https://billing.example.com: invoices:write' });
      await page.getByRole('button', { name: 'Add permission' }).click();
      await page
        .getByRole('table', { name: 'Permissions' })
        .getByRole('cell', { name: 'invoices:write', exact: true })
        .waitFor();

      // By keyboard: Enter searches, Tab reaches the match's button, Enter assigns.
      await page.getByRole('searchbox', { name: 'Find users to assign' }).fill('Rita');
      await page.keyboard.press('Enter');
      const assign = page.getByRole('button', { name: 'Assign to Rita Role' });
      await assign.waitFor();
      for (let presses = 0; presses < 6 && !(await isFocused(assign)); presses += 1) await page.keyboard.press('Tab');
      expect(await isFocused(assign), 'Tab reaches "Assign to Rita Role"').to.equal(true);
      await page.keyboard.press('Enter');
      await page
        .getByRole('table', { name: 'Users holding this role' })
        .getByRole('cell', { name: 'Rita Role', exact: true })
        .waitFor();
      const overflow = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      expect(overflow, 'nothing sticks out sideways at 360 px').to.be.at.most(0);
      await screenshot(page, 'console-role-assigned');

      const [role] = await running.read<Array<{ id: string; name: string; description: string; type: string }>>(
        `/api/users/${user.id}/roles`,
      );
      expect(role).to.include({ name: 'Billing clerk', description: 'Writes invoices', type: 'User' });
      const granted = await running.read<Array<{ id: string }>>(`/api/roles/${role!.id}/scopes`);
      expect(granted.map((scope) => scope.id)).to.deep.equal([scopes['invoices:write']!.id]);
    } finally {
      await context.close();
    }
  });
  it('assigns a machine-to-machine role to an application, which can then be removed from it', async () => {
    const role = await createRole(running, [], 'MachineToMachine');
    const app = await createApplication(running, { type: 'MachineToMachine', name: 'Report exporter' });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl(`/roles/${role.id}`));
      const section = page.getByRole('region', { name: 'Applications' });
      await section.getByRole('combobox', { name: 'Application to assign' }).selectOption({ label: 'Report exporter' });
      await section.getByRole('button', { name: 'Assign application' }).click();
      await section
        .getByRole('table', { name: 'Applications holding this role' })
        .getByRole('link', { name: 'Report exporter' })
        .waitFor();
      expect(
        (await running.read<Array<{ id: string }>>(`/api/applications/${app.id}/roles`)).map((held) => held.id),
      ).to.deep.equal([role.id]);
      await screenshot(page, 'console-role-application');

      await section.getByRole('button', { name: 'Remove Report exporter from this role' }).click();
      await section.getByText('No application holds this role.').waitFor();
      expect(await running.read<unknown[]>(`/api/applications/${app.id}/roles`)).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
