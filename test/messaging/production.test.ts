import { expect } from 'chai';
import { pino } from 'pino';
import { ConfigurationError } from '../../lib/config.ts';
import { createIdentityService, type IdentityServiceOptions } from '../../lib/index.ts';
import { generateSigningKey } from '../../lib/webhooks/signing.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';

/** Production on embedded storage (allowed explicitly), so that only the connectors decide. */
const PRODUCTION = { NODE_ENV: 'production', ALLOW_EMBEDDED_IN_PRODUCTION: 'true', BASE_URL: 'https://id.example.com' };

async function startError(env: Record<string, string>): Promise<unknown> {
  const options: IdentityServiceOptions = { env: { ...PRODUCTION, ...env }, logger: pino({ level: 'silent' }), print: () => {} };
  try {
    const service = await createIdentityService(options);
    await service.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('connectors in production', () => {
  let mailbox: Mailbox;
  const sms = { SMS_WEBHOOK_URL: 'https://sms.example.com/hook', SMS_WEBHOOK_SIGNING_KEY: generateSigningKey() };

  before(async () => {
    mailbox = await startMailbox();
  });
  after(async () => {
    await mailbox?.close();
  });

  it('refuses to start on the development email connector, naming SMTP_URL', async () => {
    const error = await startError(sms);
    expect(error).to.be.instanceOf(ConfigurationError);
    expect((error as Error).message).to.match(/NODE_ENV=production needs SMTP_URL/);
    expect((error as Error).message).not.to.match(/SMS_WEBHOOK_URL/);
  });

  it('refuses to start on the development SMS connector, naming SMS_WEBHOOK_URL', async () => {
    const error = await startError({ SMTP_URL: mailbox.url });
    expect(error).to.be.instanceOf(ConfigurationError);
    expect((error as Error).message).to.match(/NODE_ENV=production needs SMS_WEBHOOK_URL and SMS_WEBHOOK_SIGNING_KEY/);
  });

  it('names both when neither is configured', async () => {
    const error = await startError({});
    expect((error as Error).message).to.match(/SMTP_URL \(email\) and SMS_WEBHOOK_URL/);
  });

  it('starts with both real connectors', async () => {
    expect(await startError({ SMTP_URL: mailbox.url, ...sms })).to.equal(undefined);
  });
});
