import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startService, type RunningService } from '../support/service.ts';
import { generateSigningKey } from '../../lib/webhooks/signing.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';

/** Production on the embedded SQLite store, so that only the connectors decide. */
const PRODUCTION = { NODE_ENV: 'production' };
const inAWeek = () => Date.now() + 7 * 86_400_000;

describe('connectors in production', () => {
  let mailbox: Mailbox;
  const sms = { SMS_WEBHOOK_URL: 'https://sms.example.com/hook', SMS_WEBHOOK_SIGNING_KEY: generateSigningKey() };

  before(async () => {
    mailbox = await startMailbox();
  });
  after(async () => {
    await mailbox?.close();
  });

  async function invite(running: RunningService, invitee: string): Promise<Response> {
    const organization = await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme' } });
    const { id } = (await organization.json()) as { id: string };
    return running.request('/api/organization-invitations', {
      method: 'POST',
      json: {
        organizationId: id,
        invitee,
        expiresAt: inAWeek(),
        messagePayload: { link: 'https://app.example.com/join' },
      },
    });
  }

  it('starts without an email connector, refuses each email naming SMTP_URL, and logs nothing of it', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const running = await startService({ env: { ...PRODUCTION, ...sms }, logger });
    try {
      const response = await invite(running, 'ada@example.com');
      expect(response.status).to.equal(422);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).to.equal('connector.not_found');
      expect(body.message).to.include('SMTP_URL');
      expect(lines.join('')).not.to.include('https://app.example.com/join');
      expect(lines.join('')).not.to.include('development connector:');
    } finally {
      await running.close();
    }
  });

  it('sends through the real email connector when SMTP_URL is set', async () => {
    const running = await startService({ env: { ...PRODUCTION, ...sms, SMTP_URL: mailbox.url } });
    try {
      const response = await invite(running, 'grace@example.com');
      expect(response.status).to.equal(201);
      const message = await mailbox.waitFor('grace@example.com', { timeoutMs: 10_000 });
      expect(message.text).to.include('https://app.example.com/join');
    } finally {
      await running.close();
    }
  });
});
