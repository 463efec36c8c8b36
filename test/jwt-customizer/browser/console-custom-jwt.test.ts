import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { createApplication, createResource, createRole } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { clientCredentialsToken } from '../../support/service.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

const SCRIPT =
  'const getCustomJwtClaims = async ({ context, environmentVariables }) => ({ tier: environmentVariables.TIER, grant: context.grant?.type ?? null });';

describe("browser: the console's custom JWT script editor and its test panel (Chromium)", () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('tests a script on samples, shows its claims, stores it, and tokens then carry them; the CSP holds with the editor', async () => {
    const { page, context } = await freshPage(chromium.browser());
    // Every CSP violation the page reports. Chromium's own editing of a contenteditable may try a style attribute when
    // text replaces a selection across lines (the policy blocks it, and the editor redraws from its state): that one
    // comes from no file. Anything the console's scripts or styles do would name its source.
    await page.addInitScript({
      content: `addEventListener('securitypolicyviolation', (event) => console.log('csp-violation ' + JSON.stringify({
        directive: event.violatedDirective, source: event.sourceFile, sample: event.sample })));`,
    });
    const violations: Array<{ directive: string; source: string; sample: string }> = [];
    page.on('console', (message) => {
      if (message.text().startsWith('csp-violation '))
        violations.push(JSON.parse(message.text().slice('csp-violation '.length)));
    });
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('link', { name: 'Custom JWT' }).click();
      const editor = page.getByRole('textbox', { name: 'Script' });
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(SCRIPT);
      expect(await editor.innerText()).to.include('getCustomJwtClaims');
      // Highlighted: the editor marks the keyword apart from the text around it.
      expect(await editor.locator('span').count()).to.be.greaterThan(3);
      await page.getByRole('textbox', { name: 'Environment variables' }).fill('TIER=gold');
      await page.getByRole('button', { name: 'Run test' }).click();
      const claims = page.getByRole('region', { name: 'Test result' }).getByLabel('Resulting claims');
      await claims.waitFor();
      expect(JSON.parse(await claims.innerText())).to.deep.equal({ tier: 'gold', grant: 'authorization_code' });
      await screenshot(page, 'console-custom-jwt-test');

      await page.getByRole('switch', { name: 'Fail closed' }).click();
      await page.getByRole('button', { name: 'Save script' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const stored = (await (await running.request('/api/configs/jwt-customizer/access-token')).json()) as Record<
        string,
        unknown
      >;
      expect(stored).to.include({ script: SCRIPT, blockIssuanceOnError: true });
      expect(stored.environmentVariables).to.deep.equal({ TIER: 'gold' });
      const ours = violations.filter((violation) => violation.source || violation.directive !== 'style-src-attr');
      expect(ours, "no CSP violation by the console's scripts or styles, the editor's included").to.deep.equal([]);
    } finally {
      await screenshot(page, 'console-custom-jwt-saved');
      await context.close();
    }

    // A real token for an API now carries the claims.
    const api = await createResource(running, 'https://reports.example.com', ['read:reports']);
    const role = await createRole(running, [api.scopes['read:reports']!.id], 'MachineToMachine');
    const app = await createApplication(running, { type: 'MachineToMachine' });
    await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
    const token = await clientCredentialsToken(
      running.baseUrl,
      app.id,
      app.secret!,
      api.resource.indicator,
      'read:reports',
    );
    expect(decodeJwt(token)).to.include({ tier: 'gold', grant: 'client_credentials' });
  });

  it('puts a syntax error under the editor and stores nothing; a script error shows in the test panel', async () => {
    const before = (await (await running.request('/api/configs/jwt-customizer/access-token')).json()) as Record<
      string,
      unknown
    >;
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl('/custom-jwt'));
      const editor = page.getByRole('textbox', { name: 'Script' });
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText('const getCustomJwtClaims = async () => ({ broken: ');
      await page.getByRole('button', { name: 'Save script' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await editor.getAttribute('aria-invalid')).to.equal('true');
      expect(await accessibleDescription(editor)).to.match(/does not compile|syntax/i);
      await screenshot(page, 'console-custom-jwt-syntax-error');
      const after = (await (await running.request('/api/configs/jwt-customizer/access-token')).json()) as Record<
        string,
        unknown
      >;
      expect(after.script, 'nothing stored').to.equal(before.script);

      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText('const getCustomJwtClaims = async () => { throw new Error("no tier today"); };');
      await page.getByRole('button', { name: 'Run test' }).click();
      const alert = page.getByRole('region', { name: 'Test result' }).getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText())
        .to.include('no tier today')
        .and.include('jwt_customizer.script_error');
    } finally {
      await screenshot(page, 'console-custom-jwt-script-error');
      await context.close();
    }
  });

  it('takes typing at full speed, select-all and Delete, and a paste, without a render loop; what is saved is what was typed', async () => {
    const { page, context } = await freshPage(chromium.browser());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: running.baseUrl });
    const typed = 'const getCustomJwtClaims = async ({ token }) => ({ fast: true, sub: token.sub });';
    const pasted = 'const getCustomJwtClaims = async () => ({ pasted: "from the clipboard" });';
    const editor = page.getByRole('textbox', { name: 'Script' });
    /** The editor's text, as CodeMirror holds it (one element per line). */
    const text = () =>
      editor.evaluate((content) =>
        [...content.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'),
      );
    /**
     * Counts the editor's DOM changes over 30 animation frames: a render loop writes an older and a newer text back in
     * turn, every frame, so it would show here (and keep the page from answering at all). Run in the page as it is.
     */
    const changesWhileIdle = () =>
      page.evaluate<number>(`new Promise((resolve) => {
      const content = document.querySelector('.cm-content[aria-label="Script"]');
      let changes = 0;
      const observer = new MutationObserver((records) => { changes += records.length; });
      observer.observe(content, { childList: true, subtree: true, characterData: true });
      let frames = 0;
      const frame = () => {
        frames += 1;
        if (frames < 30) return requestAnimationFrame(frame);
        observer.disconnect();
        resolve(changes);
      };
      requestAnimationFrame(frame);
    })`);
    try {
      await signInToConsole(page, running.consoleUrl('/custom-jwt'));
      await editor.click();
      // Select everything, delete it, and type without any pause between keys.
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type(typed, { delay: 0 });
      expect(await changesWhileIdle(), 'the editor is still when typing stops').to.equal(0);
      expect(await text()).to.equal(typed);

      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(pasted)})`);
      await page.keyboard.press('Control+V');
      await page.keyboard.type(' ', { delay: 0 });
      await page.keyboard.press('Backspace');
      expect(await changesWhileIdle(), 'the editor is still after the paste').to.equal(0);
      expect(await text()).to.equal(pasted);

      await page.getByRole('button', { name: 'Save script' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const stored = (await (await running.request('/api/configs/jwt-customizer/access-token')).json()) as {
        script: string;
      };
      expect(stored.script).to.equal(pasted);
      await screenshot(page, 'console-custom-jwt-fast-typing');
    } finally {
      await context.close();
    }
  });
});
