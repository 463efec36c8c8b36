import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import { httpStatusOf } from '../../lib/http/errors.ts';
import type { MessagePurpose, Recipient } from '../../lib/messaging/index.ts';
import { startService, type RunningService } from '../support/service.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';
import { capturingLogger } from '../support/logs.ts';
import { refusingUrl } from '../support/webhooks/receiver.ts';

const address = () => `user-${randomBytes(4).toString('hex')}@example.com`;
const email = (value: string): Recipient => ({ type: 'email', value });

/** The domain error a call failed with; fails the test when it succeeded or threw anything else. */
async function failure(attempt: Promise<void>): Promise<DomainError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a domain error');
}

describe('email verification codes through a real SMTP server', () => {
  const rejecting = new Set<string>();
  let mailbox: Mailbox;
  let running: RunningService;

  before(async () => {
    mailbox = await startMailbox({
      credentials: { user: 'mailer@example.com', pass: 'p@ss:word/1' },
      rejects: (to) => rejecting.has(to),
    });
    running = await startService({ env: { SMTP_URL: mailbox.url } });
  });
  after(async () => {
    await running?.close();
    await mailbox?.close();
  });

  const messaging = () => running.service.core.messaging;

  it('emails a code per purpose, authenticated with the SMTP_URL credentials, from no-reply@ the service host', async () => {
    const subjects = new Set<string>();
    for (const purpose of ['Register', 'SignIn', 'ForgotPassword', 'Generic'] as const satisfies MessagePurpose[]) {
      const to = address();
      await messaging().sendCode({ purpose, to: email(to), applicationName: 'Portal' });
      const mail = await mailbox.waitFor(to);
      expect(mail.user).to.equal('mailer@example.com');
      expect(mail.from).to.equal('no-reply@[127.0.0.1]');
      expect(mail.to).to.deep.equal([to]);
      expect(mail.subject).to.include('Portal');
      subjects.add(mail.subject);
      const code = codeFrom(mail);
      expect(mail.html).to.include(code);
      expect(mail.text).to.include('10 minutes');
      await messaging().verifyCode({ purpose, to: email(to), code });
    }
    expect(subjects.size, 'each purpose has its own subject').to.equal(4);
  });

  it('escapes values in the HTML part, never in the text part, and keeps the subject on one line', async () => {
    const to = address();
    await messaging().sendCode({
      purpose: 'SignIn',
      to: email(to),
      applicationName: '<img src=x onerror=alert(1)> & Co\r\nBcc: x@example.com',
    });
    const mail = await mailbox.waitFor(to);
    expect(mail.html).to.include('&lt;img src=x onerror=alert(1)&gt; &amp; Co');
    expect(mail.html).not.to.include('<img');
    expect(mail.text).to.include('<img src=x onerror=alert(1)> & Co');
    expect(mail.subject).not.to.match(/[\r\n]/);
    expect(mail.to, 'no recipient smuggled through a header').to.deep.equal([to]);
  });

  it('names the service host when no application name is given', async () => {
    const to = address();
    await messaging().sendCode({ purpose: 'Generic', to: email(to) });
    const mail = await mailbox.waitFor(to);
    expect(mail.subject).to.include(new URL(running.baseUrl).host);
  });

  it('answers 502 connector.general when the server refuses the recipient, and the previous code stays in force', async () => {
    const to = address();
    await messaging().sendCode({ purpose: 'SignIn', to: email(to) });
    const first = codeFrom(await mailbox.waitFor(to));
    rejecting.add(to);
    try {
      const error = await failure(messaging().sendCode({ purpose: 'SignIn', to: email(to) }));
      expect(error.code).to.equal('connector.general');
      expect(httpStatusOf(error)).to.equal(502);
    } finally {
      rejecting.delete(to);
    }
    expect(mailbox.messages(to)).to.have.length(1);
    await messaging().verifyCode({ purpose: 'SignIn', to: email(to), code: first });
  });

  it('sends invitations only through sendInvitation, codes only through sendCode', async () => {
    const error = await messaging()
      .sendCode({ purpose: 'OrganizationInvitation', to: email(address()) })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).to.be.instanceOf(TypeError);
  });
});

describe('email connector settings', () => {
  it('sends from EMAIL_FROM, display name included', async () => {
    const mailbox = await startMailbox();
    const running = await startService({
      env: { SMTP_URL: mailbox.url, EMAIL_FROM: 'Example Login <login@example.com>' },
    });
    try {
      const to = address();
      await running.service.core.messaging.sendCode({ purpose: 'SignIn', to: email(to) });
      const mail = await mailbox.waitFor(to);
      expect(mail.from).to.equal('login@example.com');
      expect(mail.fromHeader).to.equal('"Example Login" <login@example.com>');
    } finally {
      await running.close();
      await mailbox.close();
    }
  });

  it('answers 503 service.dependency_unavailable when the SMTP server cannot be reached', async () => {
    const port = new URL(await refusingUrl()).port;
    const running = await startService({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const error = await failure(running.service.core.messaging.sendCode({ purpose: 'SignIn', to: email(address()) }));
      expect(error.code).to.equal('service.dependency_unavailable');
      expect(httpStatusOf(error)).to.equal(503);
    } finally {
      await running.close();
    }
  });

  it('without SMTP_URL, logs each message with its code at info instead of sending it (development connector)', async () => {
    const { logger, lines } = capturingLogger();
    const running = await startService({ logger });
    try {
      const to = address();
      await running.service.core.messaging.sendCode({ purpose: 'Register', to: email(to) });
      const line = lines.find((entry) => entry.connector === 'development' && entry.to === to);
      expect(line, 'the message was logged').to.not.equal(undefined);
      expect(line?.level).to.equal(30);
      const code = codeFrom({ text: String(line?.text) });
      await running.service.core.messaging.verifyCode({ purpose: 'Register', to: email(to), code });
    } finally {
      await running.close();
    }
  });
});
