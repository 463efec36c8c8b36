import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ConfigurationError } from '../../lib/config.ts';
import { createIdentityService, type IdentityServiceOptions } from '../../app/index.ts';
import type { MessageTemplates } from '../../lib/messaging/index.ts';
import { startService, type RunningService } from '../support/service.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';

async function templatesDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'message-templates-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

async function startError(
  options: Pick<IdentityServiceOptions, 'messageTemplates'> & { env?: Record<string, string> },
): Promise<unknown> {
  try {
    const service = await createIdentityService({
      ...options,
      env: { STORAGE: 'memory', ...options.env },
      logger: pino({ level: 'silent' }),
      print: () => {},
    });
    await service.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('message templates', () => {
  let mailbox: Mailbox;
  let running: RunningService | undefined;
  const dirs: string[] = [];

  before(async () => {
    mailbox = await startMailbox();
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  after(async () => {
    await mailbox?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("uses the library user's templates, keeping the defaults for the parts not given", async () => {
    const messageTemplates: MessageTemplates = {
      SignIn: { subject: 'Code for {{recipient}}', text: 'Sign in with {{code}} within {{expiresInMinutes}} min.' },
    };
    running = await startService({
      env: { SMTP_URL: mailbox.url, VERIFICATION_CODE_TTL_SECONDS: '120' },
      messageTemplates,
    });
    await running.service.core.messaging.sendCode({
      purpose: 'SignIn',
      to: { type: 'email', value: 'lib@example.com' },
    });
    const mail = await mailbox.waitFor('lib@example.com');
    expect(mail.subject).to.equal('Code for lib@example.com');
    const code = codeFrom(mail);
    expect(mail.text.trim()).to.equal(`Sign in with ${code} within 2 min.`);
    expect(mail.html, 'the default HTML part').to.include('letter-spacing');
  });

  it('reads MESSAGE_TEMPLATES_DIR at start, and code-given templates win over it', async () => {
    const dir = await templatesDir({
      'Register.subject.txt': 'Welcome to {{applicationName}}\n',
      'Register.txt': 'Your code: {{code}}\n',
      'Register.html': '<p>Your code: <b>{{code}}</b> for {{applicationName}}</p>',
      'ForgotPassword.txt': 'Reset with {{code}}',
    });
    dirs.push(dir);
    running = await startService({
      env: { SMTP_URL: mailbox.url, MESSAGE_TEMPLATES_DIR: dir },
      messageTemplates: { ForgotPassword: { text: 'From code: {{code}}' } },
    });
    await running.service.core.messaging.sendCode({
      purpose: 'Register',
      to: { type: 'email', value: 'dir@example.com' },
      applicationName: 'A&B',
    });
    const mail = await mailbox.waitFor('dir@example.com');
    expect(mail.subject).to.equal('Welcome to A&B');
    expect(mail.text).to.equal(`Your code: ${codeFrom(mail)}\n`);
    expect(mail.html).to.include(`<b>${codeFrom(mail)}</b> for A&amp;B`);

    await running.service.core.messaging.sendCode({
      purpose: 'ForgotPassword',
      to: { type: 'email', value: 'dir@example.com' },
    });
    const reset = await mailbox.waitFor('dir@example.com');
    expect(reset.text.trim()).to.equal(`From code: ${codeFrom(reset)}`);
  });

  it('refuses at start a template that would send no code or link, or names an unknown placeholder', async () => {
    const cases: Array<[MessageTemplates, RegExp]> = [
      [{ SignIn: { text: 'Sign in now' } }, /SignIn text must contain \{\{code\}\}/],
      [{ Generic: { sms: 'Code {{cod}}: {{code}}' } }, /unknown placeholders \{\{cod\}\}/],
      [
        { OrganizationInvitation: { html: '<p>Join {{organizationName}}</p>' } },
        /OrganizationInvitation html must contain \{\{link\}\}/,
      ],
      [{ Register: { subject: 'Line one\nline two' } }, /subject must be one line/],
      [{ Welcome: { text: '{{code}}' } } as MessageTemplates, /unknown purposes Welcome/],
      [{ OrganizationInvitation: { sms: 'Join: {{link}}' } }, /OrganizationInvitation has no part sms/],
      [
        { UserImpersonated: { text: 'Accessed by {{actor}}' } },
        /UserImpersonated text uses unknown placeholders \{\{actor\}\}/,
      ],
      [{ UserImpersonated: { sms: 'Accessed' } }, /UserImpersonated has no part sms/],
    ];
    for (const [messageTemplates, message] of cases) {
      const error = await startError({ messageTemplates });
      expect(error, JSON.stringify(messageTemplates)).to.be.instanceOf(ConfigurationError);
      expect((error as Error).message).to.match(message);
    }
  });

  it('refuses a MESSAGE_TEMPLATES_DIR that is missing or holds a file naming no template', async () => {
    const dir = await templatesDir({
      'SignIn.txt': 'Code {{code}}',
      'Signin.html': '<p>{{code}}</p>',
      'OrganizationInvitation.sms.txt': '{{link}}',
    });
    dirs.push(dir);
    const stray = await startError({ env: { MESSAGE_TEMPLATES_DIR: dir } });
    expect(stray).to.be.instanceOf(ConfigurationError);
    expect((stray as Error).message).to.match(/OrganizationInvitation\.sms\.txt, Signin\.html/);
    const missing = await startError({ env: { MESSAGE_TEMPLATES_DIR: join(dir, 'nowhere') } });
    expect(missing).to.be.instanceOf(ConfigurationError);
    expect((missing as Error).message).to.match(/MESSAGE_TEMPLATES_DIR .* cannot be read/);
  });
});
