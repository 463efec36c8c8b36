import { expect } from 'chai';
import type { RunningService } from '../../support/service.ts';
import { bodyOf, createHook, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

const URL_OK = 'https://consumer.example.com/hooks';

/** One case per class of header Node cannot send, or that would break every delivery. */
const REFUSED: Array<[string, Record<string, string>]> = [
  ['a code point above U+00FF', { 'x-tenant': 'caf\u0100' }],
  ['an emoji', { 'x-tenant': 'acme 😀' }],
  ['DEL', { 'x-tenant': 'a\u007fb' }],
  ['a C0 control character', { 'x-tenant': 'a\u0001b' }],
  ['NUL', { 'x-tenant': 'a\u0000b' }],
  ['CR', { 'x-tenant': 'a\rb' }],
  ['LF', { 'x-tenant': 'a\nb' }],
  ['a name that is not a token', { 'x tenant': 'acme' }],
  ['a name with a non-ASCII letter', { 'x-tenänt': 'acme' }],
  ['an empty name', { '': 'acme' }],
  ...[
    'Trailer',
    'Connection',
    'Transfer-Encoding',
    'Keep-Alive',
    'Upgrade',
    'TE',
    'Host',
    'Content-Length',
    'Proxy-Authorization',
    'proxy-connection',
    'CONNECTION',
  ].map((name) => [`the ${name} header`, { [name]: 'x' }] as [string, Record<string, string>]),
  ...[
    'Content-Type',
    'User-Agent',
    'Webhook-Id',
    'Webhook-Timestamp',
    'Webhook-Signature',
    'Logto-Signature-Sha-256',
  ].map((name) => [`the service's own ${name}`, { [name]: 'x' }] as [string, Record<string, string>]),
];

describe('custom webhook headers', () => {
  let running: RunningService;
  let receiver: Receiver;

  before(async () => {
    running = await startHookService('memory');
    receiver = await Receiver.start();
  });
  after(async () => {
    await running.close();
    await receiver.close();
  });

  async function expectRefused(response: Response, name: string) {
    const body = await bodyOf(response);
    expect(response.status, JSON.stringify(body)).to.equal(400);
    expect(body.code).to.equal('guard.invalid_input');
    expect(body.message).to.include(JSON.stringify(name));
    expect(body.data.issues.map((issue: { path: string }) => issue.path)).to.include(`body.config.headers.${name}`);
  }

  for (const [label, headers] of REFUSED) {
    const name = Object.keys(headers)[0]!;
    it(`refuses ${label} at registration and on update, naming the header`, async () => {
      await expectRefused(
        await running.request('/api/hooks', {
          method: 'POST',
          json: {
            name: 'h',
            events: ['User.Created'],
            config: { url: URL_OK, headers: { 'x-fine': 'ok', ...headers } },
          },
        }),
        name,
      );
      const hook = await createHook(running, {
        events: ['User.Created'],
        config: { url: URL_OK, headers: { 'x-fine': 'ok' } },
      });
      await expectRefused(
        await running.request(`/api/hooks/${hook.id}`, {
          method: 'PATCH',
          json: { config: { url: URL_OK, headers } },
        }),
        name,
      );
      const stored = (await (await running.request(`/api/hooks/${hook.id}`)).json()) as { config: unknown };
      expect(stored.config).to.deep.equal({ url: URL_OK, headers: { 'x-fine': 'ok' } });
    });
  }

  it('accepts what Node can send (Latin-1, tabs) and delivers it', async () => {
    const headers = { 'x-tenant': 'café', 'x-tabbed': 'a\tb', 'X-Mixed-Case': 'Value' };
    await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/latin1'), headers } });
    const created = await running.request('/api/users', { method: 'POST', json: { username: 'header_check' } });
    expect(created.status).to.equal(201);
    const [request] = await eventually(() => receiver.requests('/latin1').length && receiver.requests('/latin1'));
    expect(request!.headers['x-tenant']).to.be.a('string').and.match(/^caf/);
    expect(request!.headers['x-tabbed']).to.equal('a\tb');
    expect(request!.headers['x-mixed-case']).to.equal('Value');
  });
});
