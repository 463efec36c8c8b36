import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { ConfigurationError } from '../../lib/config.ts';
import { createIdentityService } from '../../app/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { httpStatusOf } from '../../lib/http/errors.ts';
import { generateSigningKey } from '../../lib/webhooks/signing.ts';
import { startService, type RunningService } from '../support/service.ts';
import { codeFrom } from '../support/mailbox.ts';
import { capturingLogger } from '../support/logs.ts';
import { Receiver, eventually, refusingUrl, type ReceivedRequest } from '../support/webhooks/receiver.ts';

const phone = () => `+1555${String(randomBytes(3).readUIntBE(0, 3) % 10_000_000).padStart(7, '0')}`;

async function failure(attempt: Promise<void>): Promise<DomainError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a domain error');
}

/** Verifies a request as the SMS endpoint would, with a Standard Webhooks library and the configured key. */
function verified(request: ReceivedRequest, signingKey: string): { to: string; text: string; type: string } {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  return new Webhook(signingKey).verify(request.body, headers) as { to: string; text: string; type: string };
}

describe('SMS verification codes through the HTTP SMS connector', () => {
  const signingKey = generateSigningKey();
  let receiver: Receiver;
  let running: RunningService;

  before(async () => {
    receiver = await Receiver.start();
    receiver.script('/fail', () => ({ status: 500, body: 'provider down' }));
    receiver.script('/redirect', () => ({ status: 302, headers: { location: receiver.url('/sms') } }));
    running = await startService({
      env: { SMS_WEBHOOK_URL: receiver.url('/sms'), SMS_WEBHOOK_SIGNING_KEY: signingKey },
    });
  });
  after(async () => {
    await running?.close();
    await receiver?.close();
  });

  it('posts { to, text, type } signed with SMS_WEBHOOK_SIGNING_KEY, and the code in it verifies', async () => {
    const to = phone();
    await running.service.core.messaging.sendCode({
      purpose: 'SignIn',
      to: { type: 'phone', value: to },
      applicationName: 'Portal',
    });
    const [request] = receiver.requests('/sms').filter((received) => JSON.parse(received.body).to === to);
    expect(request, 'the SMS request arrived before sendCode returned').to.not.equal(undefined);
    if (!request) return;
    expect(request.headers['content-type']).to.equal('application/json');
    expect(request.headers['webhook-id']).to.match(/^msg_/);
    const body = verified(request, signingKey);
    expect(body).to.have.keys(['to', 'text', 'type']);
    expect(body).to.include({ to, type: 'SignIn' });
    expect(body.text).to.include('Portal');
    expect(
      () =>
        new Webhook(generateSigningKey()).verify(
          request.body,
          Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        ),
      'another key does not verify it',
    ).to.throw();
    await running.service.core.messaging.verifyCode({
      purpose: 'SignIn',
      to: { type: 'phone', value: to },
      code: codeFrom(body),
    });
  });

  it('gives every message its own webhook-id', async () => {
    const to = phone();
    await running.service.core.messaging.sendCode({ purpose: 'Register', to: { type: 'phone', value: to } });
    await running.service.core.messaging.sendCode({ purpose: 'Register', to: { type: 'phone', value: to } });
    const ids = receiver
      .requests('/sms')
      .filter((received) => JSON.parse(received.body).to === to)
      .map((r) => r.headers['webhook-id']);
    expect(ids).to.have.length(2);
    expect(ids[0]).to.not.equal(ids[1]);
  });

  for (const [path, what] of [
    ['/fail', 'answers 500'],
    ['/redirect', 'redirects'],
  ] as const) {
    it(`answers 502 connector.general when the endpoint ${what}`, async () => {
      const failing = await startService({
        env: { SMS_WEBHOOK_URL: receiver.url(path), SMS_WEBHOOK_SIGNING_KEY: signingKey },
      });
      try {
        const before = receiver.requests('/sms').length;
        const error = await failure(
          failing.service.core.messaging.sendCode({ purpose: 'SignIn', to: { type: 'phone', value: phone() } }),
        );
        expect(error.code).to.equal('connector.general');
        expect(httpStatusOf(error)).to.equal(502);
        expect(receiver.requests(path)).to.have.length.at.least(1);
        expect(receiver.requests('/sms').length, 'the redirect is not followed').to.equal(before);
      } finally {
        await failing.close();
      }
    });
  }

  it('answers 503 service.dependency_unavailable when the endpoint cannot be reached', async () => {
    const failing = await startService({
      env: { SMS_WEBHOOK_URL: await refusingUrl(), SMS_WEBHOOK_SIGNING_KEY: signingKey },
    });
    try {
      const error = await failure(
        failing.service.core.messaging.sendCode({ purpose: 'SignIn', to: { type: 'phone', value: phone() } }),
      );
      expect(error.code).to.equal('service.dependency_unavailable');
      expect(httpStatusOf(error)).to.equal(503);
    } finally {
      await failing.close();
    }
  });

  it('gives up on an endpoint that never answers at OUTBOUND_TIMEOUT_MS (503 service.dependency_unavailable)', async () => {
    receiver.script('/hang', () => 'hang');
    const hanging = await startService({
      env: { SMS_WEBHOOK_URL: receiver.url('/hang'), SMS_WEBHOOK_SIGNING_KEY: signingKey, OUTBOUND_TIMEOUT_MS: '300' },
    });
    try {
      const error = await failure(
        hanging.service.core.messaging.sendCode({ purpose: 'SignIn', to: { type: 'phone', value: phone() } }),
      );
      expect(error.code).to.equal('service.dependency_unavailable');
      expect(receiver.requests('/hang'), 'the request was sent, then abandoned').to.have.length(1);
    } finally {
      await hanging.close();
    }
  });
});

describe('SMS without SMS_WEBHOOK_URL', () => {
  it('goes to the development connector, which logs the text with its code', async () => {
    const { logger, lines } = capturingLogger();
    const running = await startService({ logger });
    try {
      const to = phone();
      await running.service.core.messaging.sendCode({ purpose: 'ForgotPassword', to: { type: 'phone', value: to } });
      const line = await eventually(() => lines.find((entry) => entry.connector === 'development' && entry.to === to), {
        what: 'the log line',
      });
      expect(line).to.include({ level: 30, channel: 'phone', purpose: 'ForgotPassword' });
      await running.service.core.messaging.verifyCode({
        purpose: 'ForgotPassword',
        to: { type: 'phone', value: to },
        code: codeFrom({ text: String(line.text) }),
      });
    } finally {
      await running.close();
    }
  });

  it('is refused with SMS_WEBHOOK_URL but no signing key, and the other way round', async () => {
    for (const env of [
      { SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms' },
      { SMS_WEBHOOK_SIGNING_KEY: generateSigningKey() },
    ]) {
      const error = await createIdentityService({
        env: { STORAGE: 'memory', ...env },
        logger: pino({ level: 'silent' }),
      }).then(
        async (started) => {
          await started.close();
          return undefined;
        },
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(Object.keys(env))).to.be.instanceOf(ConfigurationError);
      expect((error as Error).message).to.match(/SMS_WEBHOOK_URL and SMS_WEBHOOK_SIGNING_KEY must be set together/);
    }
  });
});
