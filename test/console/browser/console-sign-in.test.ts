import { expect } from 'chai';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { CONSOLE_ADMIN, signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe("browser: the console's sign-in experience and connectors pages (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('changes the sign-in experience, shows refusals where they belong, and the sign-in page follows', async () => {
    const visitor = await freshPage(chromium.browser());
    const { page, context } = await freshPage(chromium.browser());
    try {
      // What an end user sees before: sign-up offered, no logo.
      await visitor.page.goto(running.consoleUrl());
      await visitor.page.getByRole('button', { name: 'Sign in' }).click();
      await visitor.page.getByRole('textbox', { name: 'Username or email' }).waitFor();
      expect(await visitor.page.getByRole('link', { name: 'Create account' }).count()).to.equal(1);
      expect(await visitor.page.getByRole('img').count()).to.equal(0);

      await signInToConsole(page, running.consoleUrl('/sign-in-experience'));
      await page.getByRole('heading', { name: 'Sign-in experience', level: 1 }).waitFor();

      const username = page.getByRole('group', { name: 'Username' });
      await username.getByRole('checkbox', { name: 'Password' }).uncheck();
      await page.getByRole('button', { name: 'Save sign-in and sign-up' }).click();
      await username
        .getByRole('alert')
        .filter({ hasText: 'sign-in by username needs a password or a verification code' })
        .waitFor();
      await username.getByRole('checkbox', { name: 'Password' }).check();
      await page.getByRole('combobox', { name: 'Sign-in mode' }).selectOption({ label: 'Sign in only (no sign-up)' });
      await page.getByRole('button', { name: 'Save sign-in and sign-up' }).click();
      await page
        .getByRole('region', { name: 'Sign-in and sign-up' })
        .getByRole('status')
        .filter({ hasText: 'Saved.' })
        .waitFor();
      expect(await username.getByRole('alert').count()).to.equal(0);

      const policy = page.getByRole('region', { name: 'Password policy' });
      await policy.getByRole('spinbutton', { name: 'Minimum length' }).fill('64');
      await policy.getByRole('spinbutton', { name: 'Maximum length' }).fill('32');
      await policy.getByRole('button', { name: 'Save password policy' }).click();
      await policy.getByRole('alert').filter({ hasText: 'must not exceed length.max' }).waitFor();
      await policy.getByRole('spinbutton', { name: 'Minimum length' }).fill('12');
      await policy.getByRole('spinbutton', { name: 'Maximum length' }).fill('128');
      await policy.getByRole('textbox', { name: 'Refused words' }).fill('acme');
      await policy.getByRole('button', { name: 'Save password policy' }).click();
      await policy.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      const mfa = page.getByRole('region', { name: 'Multi-factor authentication' });
      expect(await mfa.getByRole('checkbox').count(), 'one checkbox per factor: TOTP, passkeys, backup codes').to.equal(
        3,
      );
      await mfa.getByRole('checkbox', { name: 'Backup codes' }).check();
      await mfa.getByRole('button', { name: 'Save MFA settings' }).click();
      await mfa.getByRole('alert').filter({ hasText: 'backup codes only back up another factor' }).waitFor();
      await mfa.getByRole('checkbox', { name: 'Authenticator app (TOTP)' }).check();
      await mfa
        .getByRole('combobox', { name: 'MFA policy' })
        .selectOption({ label: 'Optional: users enrol from their account, never asked' });
      await mfa.getByRole('button', { name: 'Save MFA settings' }).click();
      await mfa.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      const logo = page.getByRole('textbox', { name: 'Logo URL' });
      await logo.fill('ftp://cdn.example.com/acme.svg');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(logo)).to.include('must be an absolute http(s) URL');
      await logo.fill('https://cdn.example.com/acme.svg');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByRole('region', { name: 'Branding' }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await screenshot(page, 'console-sign-in-experience');

      const settings = await running.read<{
        signInMode: string;
        branding: { logoUrl?: string };
        signIn: { methods: Array<{ identifier: string; password: boolean }> };
        mfa: { factors: string[]; policy: string };
        passwordPolicy: { length: { min: number; max: number }; rejects: { words: string[] } };
      }>('/api/sign-in-exp');
      expect(settings.passwordPolicy.length).to.deep.equal({ min: 12, max: 128 });
      expect(settings.passwordPolicy.rejects.words).to.deep.equal(['acme']);
      expect(settings.mfa).to.deep.include({ policy: 'NoPrompt' });
      expect([...settings.mfa.factors].sort()).to.deep.equal(['BackupCode', 'Totp']);
      expect(settings.signInMode).to.equal('SignIn');
      expect(settings.branding.logoUrl).to.equal('https://cdn.example.com/acme.svg');
      expect(settings.signIn.methods.find((method) => method.identifier === 'username')?.password).to.equal(true);

      // The same sign-in page, again: no sign-up, the logo.
      await visitor.page.reload();
      await visitor.page.getByRole('textbox', { name: 'Username or email' }).waitFor();
      expect(await visitor.page.getByRole('link', { name: 'Create account' }).count()).to.equal(0);
      expect(await visitor.page.getByRole('img', { name: /logo/ }).getAttribute('src')).to.equal(
        'https://cdn.example.com/acme.svg',
      );
      await screenshot(visitor.page, 'console-sign-in-experience-applied');
    } finally {
      await context.close();
      await visitor.context.close();
    }
  });
  it('keeps the stored secondary sign-up identifiers and social sign-in settings when the sign-in section saves', async () => {
    const secondaryIdentifiers = [{ identifier: 'email', verify: true }];
    // The administrator must have the email the settings will require of every account signing in.
    const [admin] = await running.read<Array<{ id: string }>>(`/api/users?search=${CONSOLE_ADMIN.username}`);
    expect(
      (
        await running.request(`/api/users/${admin!.id}`, {
          method: 'PATCH',
          json: { primaryEmail: 'console.admin@example.com' },
        })
      ).status,
    ).to.equal(200);
    const patched = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: {
        signInMode: 'SignIn',
        signUp: { identifiers: ['username'], password: true, verify: true, secondaryIdentifiers },
        socialSignIn: { automaticAccountLinking: true },
      },
    });
    expect(patched.status, await patched.clone().text()).to.equal(200);
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl('/sign-in-experience'));
      await page.getByRole('combobox', { name: 'Sign-in mode' }).selectOption({ label: 'Sign in and sign up' });
      await page.getByRole('button', { name: 'Save sign-in and sign-up' }).click();
      await page
        .getByRole('region', { name: 'Sign-in and sign-up' })
        .getByRole('status')
        .filter({ hasText: 'Saved.' })
        .waitFor();
      await screenshot(page, 'console-sign-in-experience-secondary-kept');
    } finally {
      await context.close();
    }
    const stored = await running.read<{ signInMode: string; signUp: Record<string, unknown>; socialSignIn: unknown }>(
      '/api/sign-in-exp',
    );
    expect(stored.signInMode).to.equal('SignInAndRegister');
    expect(stored.signUp).to.deep.equal({
      identifiers: ['username'],
      password: true,
      verify: true,
      secondaryIdentifiers,
    });
    expect(stored.socialSignIn).to.deep.equal({ automaticAccountLinking: true });
  });

  it('creates a social connector and an enterprise SSO connector, with config refusals at their fields, at phone width', async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await signInToConsole(page, running.consoleUrl('/connectors'));
      await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create social connector' }).click();
      const social = page.getByRole('dialog', { name: 'Create social connector' });
      await social.getByRole('combobox', { name: 'Protocol' }).selectOption({ label: 'OAuth 2.0' });
      await social.getByRole('textbox', { name: 'Display name' }).fill('Acme ID');
      await social.getByRole('textbox', { name: 'Identity target' }).fill('acme');
      await social.getByRole('textbox', { name: 'Client ID' }).fill('acme-client');
      await social.getByLabel('Client secret').fill('acme-secret-1234');
      await social.getByRole('checkbox', { name: 'Find the endpoints by discovery' }).uncheck();
      await social.getByRole('textbox', { name: 'Authorization endpoint' }).fill('https://id.acme.example/authorize');
      const token = social.getByRole('textbox', { name: 'Token endpoint' });
      await token.fill('http://id.acme.example/token');
      await social.getByRole('textbox', { name: 'Userinfo endpoint' }).fill('https://id.acme.example/me');
      await social.getByRole('textbox', { name: 'User ID claim' }).fill('user_id');
      await social.getByRole('button', { name: 'Create', exact: true }).click();
      await social.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(token)).to.include('must use https');
      await token.fill('https://id.acme.example/token');
      await social.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Acme ID', level: 1 }).waitFor();
      expect(await accessibleDescription(page.getByLabel('Client secret')), 'the secret is answered masked').to.match(
        /Stored: \*+1234/,
      );
      await screenshot(page, 'console-social-connector');

      await page.getByRole('link', { name: '← Connectors' }).click();
      await page.getByRole('button', { name: 'Create enterprise SSO connector' }).click();
      const sso = page.getByRole('dialog', { name: 'Create enterprise SSO connector' });
      await sso.getByRole('textbox', { name: 'Connector name' }).fill('Contoso workforce');
      await sso.getByRole('textbox', { name: 'Email domains' }).fill('contoso.example');
      await sso.getByRole('textbox', { name: 'Issuer' }).fill(`${running.baseUrl}/oidc`);
      await sso.getByRole('textbox', { name: 'Client ID' }).fill('contoso-client');
      await sso.getByLabel('Client secret').fill('contoso-secret-5678');
      await sso.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'Contoso workforce', level: 1 }).waitFor();
      await page.getByRole('link', { name: '← Connectors' }).click();
      await page
        .getByRole('table', { name: 'Enterprise SSO connectors' })
        .getByRole('link', { name: 'Contoso workforce' })
        .waitFor();
      await page.getByRole('table', { name: 'Social connectors' }).getByRole('link', { name: 'Acme ID' }).waitFor();
      const overflow = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      expect(overflow, 'nothing sticks out sideways at 360 px').to.be.at.most(0);
      await screenshot(page, 'console-connectors');

      const [connector] =
        await running.read<
          Array<{
            connectorId: string;
            target: string;
            config: Record<string, any>;
            metadata: { name: Record<string, string> };
          }>
        >('/api/connectors');
      expect(connector).to.deep.include({
        connectorId: 'oauth2',
        target: 'acme',
        metadata: { ...connector!.metadata, name: { en: 'Acme ID' } },
      });
      expect(connector!.config).to.deep.include({
        clientId: 'acme-client',
        authorizationEndpoint: 'https://id.acme.example/authorize',
        tokenEndpoint: 'https://id.acme.example/token',
        userInfoEndpoint: 'https://id.acme.example/me',
        profileMap: { id: 'user_id' },
      });
      const [ssoConnector] =
        await running.read<Array<{ connectorName: string; domains: string[]; config: Record<string, any> }>>(
          '/api/sso-connectors',
        );
      expect(ssoConnector).to.deep.include({ connectorName: 'Contoso workforce', domains: ['contoso.example'] });
      expect(ssoConnector!.config).to.deep.include({ issuer: `${running.baseUrl}/oidc`, clientId: 'contoso-client' });
    } finally {
      await context.close();
    }
  });

  it("keeps a connector's Logto-only settings when its page saves a change to the settings it shows", async () => {
    const created = await running.request('/api/connectors', {
      method: 'POST',
      json: {
        connectorId: 'oauth2',
        metadata: { target: 'exported', name: { en: 'Exported' }, logo: '' },
        config: {
          clientId: 'exported-client',
          clientSecret: 'exported-secret-9876',
          responseType: 'code',
          grantType: 'authorization_code',
          authorizationEndpoint: 'https://git.exported.example/login/oauth/authorize',
          tokenEndpoint: 'https://git.exported.example/login/oauth/access_token',
          userInfoEndpoint: 'https://api.exported.example/user',
          scope: 'read:user+user:email',
          tokenEndpointResponseType: 'query-string',
          customConfig: { allowSignup: 'false' },
          profileMap: { id: 'id' },
        },
      },
    });
    const { id } = (await created.json()) as { id: string };
    expect(created.status).to.equal(201);
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl(`/connectors/social/${id}`));
      await page.getByRole('heading', { name: 'Exported', level: 1 }).waitFor();
      await page.getByRole('textbox', { name: 'Display name' }).fill('Exported Git');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await screenshot(page, 'console-social-connector-exported');
    } finally {
      await context.close();
    }
    const stored = await running.read<{ metadata: { name: Record<string, string> }; config: Record<string, unknown> }>(
      `/api/connectors/${id}`,
    );
    expect(stored.metadata.name).to.deep.equal({ en: 'Exported Git' });
    expect(stored.config).to.deep.include({
      clientId: 'exported-client',
      responseType: 'code',
      grantType: 'authorization_code',
      tokenEndpointResponseType: 'query-string',
      customConfig: { allowSignup: 'false' },
      profileMap: { id: 'id' },
    });
    expect(stored.config.clientSecret, 'the stored secret is kept, answered masked').to.match(/\*+9876$/);
  });
});
