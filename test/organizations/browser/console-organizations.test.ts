import { expect } from 'chai';
import { createApplication, createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe("browser: the console's organizations and organization template pages (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('creates an organization, adds a member with an organization role, and a just-in-time email domain', async () => {
    const role = (await (
      await running.request('/api/organization-roles', {
        method: 'POST',
        json: { name: 'Editor', description: 'Edits documents' },
      })
    ).json()) as { id: string };
    const user = await createUser(running, [], { name: 'Olga Member', primaryEmail: 'olga@acme.example' });
    const robotRole = (await (
      await running.request('/api/organization-roles', {
        method: 'POST',
        json: { name: 'Robot', type: 'MachineToMachine' },
      })
    ).json()) as { id: string };
    const robot = await createApplication(running, { type: 'MachineToMachine', name: 'Nightly sync' });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl('/organizations'));
      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create organization' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create organization' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Acme Corp');
      await dialog.getByRole('textbox', { name: 'Description' }).fill('Our first customer');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Acme Corp', level: 1 }).waitFor();
      const organizationId = new URL(page.url()).pathname.split('/').pop()!;

      await page.getByRole('combobox', { name: 'Organization role for new members' }).selectOption({ label: 'Editor' });
      await page.getByRole('searchbox', { name: 'Find users to add' }).fill('Olga');
      await page.getByRole('button', { name: 'Find users' }).click();
      await page.getByRole('button', { name: 'Add Olga Member' }).click();
      const members = page.getByRole('table', { name: 'Members of this organization' });
      await members
        .getByRole('row', { name: /Olga Member/ })
        .getByRole('cell', { name: 'Editor', exact: true })
        .waitFor();

      const domain = page.getByRole('textbox', { name: 'Email domain to add' });
      await domain.fill('not a domain');
      await page.getByRole('button', { name: 'Add email domain' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(domain)).to.include('must be a domain name');
      await domain.fill('acme.example');
      await page.getByRole('button', { name: 'Add email domain' }).click();
      await page
        .getByRole('table', { name: 'Just-in-time email domains' })
        .getByRole('cell', { name: 'acme.example', exact: true })
        .waitFor();
      await page.getByRole('combobox', { name: 'Default role to add' }).selectOption({ label: 'Editor' });
      await page.getByRole('button', { name: 'Add default role' }).click();
      await page
        .getByRole('table', { name: 'Just-in-time default roles' })
        .getByRole('cell', { name: 'Editor', exact: true })
        .waitFor();
      const invitations = page.getByRole('region', { name: 'Invitations' });
      await invitations.getByRole('textbox', { name: 'Invitee email' }).fill('new.hire@acme.example');
      await invitations.getByRole('combobox', { name: 'Organization role' }).selectOption({ label: 'Editor' });
      await invitations.getByRole('button', { name: 'Invite' }).click();
      await invitations
        .getByRole('row', { name: /new\.hire@acme\.example/ })
        .getByRole('cell', { name: 'Pending' })
        .waitFor();
      const apps = page.getByRole('region', { name: 'Applications' });
      await apps.getByRole('combobox', { name: 'Application to add' }).selectOption({ label: 'Nightly sync' });
      await apps.getByRole('button', { name: 'Add application' }).click();
      await apps.getByRole('button', { name: 'Edit roles of Nightly sync' }).click();
      const roleDialog = page.getByRole('dialog', { name: 'Roles of Nightly sync' });
      await roleDialog.getByRole('checkbox', { name: 'Robot' }).check();
      await roleDialog.getByRole('button', { name: 'Save roles' }).click();
      await apps
        .getByRole('row', { name: /Nightly sync/ })
        .getByRole('cell', { name: 'Robot', exact: true })
        .waitFor();
      await screenshot(page, 'console-organization');

      const organization = await running.read<{ name: string; description: string }>(
        `/api/organizations/${organizationId}`,
      );
      expect(organization).to.include({ name: 'Acme Corp', description: 'Our first customer' });
      const listed = await running.read<Array<{ id: string; organizationRoles: Array<{ id: string }> }>>(
        `/api/organizations/${organizationId}/users`,
      );
      expect(
        listed.map((member) => ({ id: member.id, roles: member.organizationRoles.map((held) => held.id) })),
      ).to.deep.equal([{ id: user.id, roles: [role.id] }]);
      expect(await running.read(`/api/organizations/${organizationId}/jit/email-domains`)).to.deep.equal([
        { organizationId, emailDomain: 'acme.example' },
      ]);
      expect(
        (await running.read<Array<{ id: string }>>(`/api/organizations/${organizationId}/jit/roles`)).map(
          (held) => held.id,
        ),
      ).to.deep.equal([role.id]);
      expect(
        (
          await running.read<Array<{ id: string }>>(
            `/api/organizations/${organizationId}/applications/${robot.id}/roles`,
          )
        ).map((held) => held.id),
      ).to.deep.equal([robotRole.id]);
      const [invitation] = await running.read<
        Array<{ invitee: string; status: string; organizationRoles: Array<{ id: string }>; expiresAt: number }>
      >(`/api/organization-invitations?organizationId=${organizationId}`);
      expect(invitation).to.include({ invitee: 'new.hire@acme.example', status: 'Pending' });
      expect(invitation!.organizationRoles.map((held) => held.id)).to.deep.equal([role.id]);
      expect(invitation!.expiresAt, 'valid for the default 7 days').to.be.greaterThan(
        Date.now() + 6 * 24 * 3600 * 1000,
      );
    } finally {
      await context.close();
    }
  });

  it('defines an organization permission and a role granting it in the organization template, at phone width', async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await signInToConsole(page, running.consoleUrl('/organization-template'));
      await page.getByRole('heading', { name: 'Organization template', level: 1 }).waitFor();
      await page.getByRole('textbox', { name: 'Permission name' }).fill('invite:member');
      await page.getByRole('button', { name: 'Add permission' }).click();
      await page
        .getByRole('table', { name: 'Organization permissions' })
        .getByRole('cell', { name: 'invite:member', exact: true })
        .waitFor();

      await page.getByRole('button', { name: 'Create organization role' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create organization role' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Team admin');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Team admin', level: 1 }).waitFor();
      await page
        .getByRole('combobox', { name: 'Organization permission to add' })
        .selectOption({ label: 'invite:member' });
      await page.getByRole('button', { name: 'Add organization permission' }).click();
      await page
        .getByRole('table', { name: 'Organization permissions of this role' })
        .getByRole('cell', { name: 'invite:member', exact: true })
        .waitFor();
      const overflow = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      expect(overflow, 'nothing sticks out sideways at 360 px').to.be.at.most(0);
      await screenshot(page, 'console-organization-role');

      const roles = await running.read<Array<{ name: string; scopes: Array<{ name: string }> }>>(
        '/api/organization-roles?q=Team',
      );
      expect(roles.map((role) => ({ name: role.name, scopes: role.scopes.map((scope) => scope.name) }))).to.deep.equal([
        { name: 'Team admin', scopes: ['invite:member'] },
      ]);
    } finally {
      await context.close();
    }
  });
});
