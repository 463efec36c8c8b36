import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { RESPONSE_BODY_LIMIT, createWebhookAgents, parseRetryAfter, sendWebhook } from '../../lib/webhooks/sender.ts';
import { createDestinationPolicy, parseNetworks } from '../../lib/webhooks/destinations.ts';

/** The receivers of these tests listen on loopback, which deliveries may reach only when allowed. */
const destinations = createDestinationPolicy({ allowedNetworks: parseNetworks('127.0.0.0/8') });

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('webhook sender', () => {
  const received: Received[] = [];
  /** Resolves with the chunks the endless body had written when its connection closed. */
  let hugeClosed: Promise<number> | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      switch (path) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
          break;
        case '/error':
          res.writeHead(500).end('boom');
          break;
        case '/redirect':
          res.writeHead(302, { location: '/ok' }).end();
          break;
        case '/limited':
          res.writeHead(429, { 'retry-after': '7' }).end();
          break;
        case '/hang':
          break;
        case '/stalled-body':
          res.writeHead(200).write('partial');
          break;
        case '/huge': {
          res.writeHead(200);
          const chunk = Buffer.alloc(64 * 1024, 'a');
          let writes = 0;
          // Endless as far as the client can tell; bounded so a broken client cannot fill the disk of CI.
          const timer = setInterval(() => {
            writes += 1;
            if (res.destroyed || writes > 5000) {
              clearInterval(timer);
              res.destroy();
            } else res.write(chunk);
          }, 1);
          hugeClosed = new Promise((resolve) => res.once('close', () => resolve(writes)));
          break;
        }
        default:
          res.writeHead(404).end();
      }
    });
  });
  let base = '';

  before(async () => {
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  beforeEach(() => {
    received.length = 0;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const send = (path: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
    sendWebhook({
      url: base + path,
      body: '{"event":"User.Created"}',
      headers: { 'webhook-id': 'delivery1' },
      timeoutMs: 2000,
      userAgent: 'identity-service-test/1.0',
      destinations,
      ...extra,
    });

  it('posts the JSON body and reports a 2xx as ok', async () => {
    const result = await send('/ok');
    expect(result).to.include({ ok: true, status: 200, responseBody: 'thanks' });
    expect(result.error).to.equal(undefined);
    expect(result.latencyMs).to.be.a('number').and.at.least(0);
    const [request] = received;
    expect(request?.body).to.equal('{"event":"User.Created"}');
    expect(request?.headers).to.include({
      'content-type': 'application/json',
      'user-agent': 'identity-service-test/1.0',
      'webhook-id': 'delivery1',
    });
  });

  it('reports a 5xx with its body', async () => {
    expect(await send('/error')).to.include({ ok: false, status: 500, responseBody: 'boom' });
  });

  it('does not follow redirects', async () => {
    const result = await send('/redirect');
    expect(result).to.include({ ok: false, status: 302 });
    expect(received.map((r) => r.path)).to.deep.equal(['/redirect']);
  });

  it('parses Retry-After seconds', async () => {
    expect(await send('/limited')).to.include({ ok: false, status: 429, retryAfterMs: 7000 });
  });

  it('times out a hanging endpoint within the limit', async () => {
    const started = Date.now();
    const result = await send('/hang', { timeoutMs: 300 });
    expect(result).to.include({ ok: false, error: 'timeout' });
    expect(result.status).to.equal(undefined);
    expect(Date.now() - started).to.be.below(1500);
  });

  it('keeps the status when only the body stalls, and still returns by the timeout', async () => {
    const started = Date.now();
    const result = await send('/stalled-body', { timeoutMs: 300 });
    expect(result).to.include({ ok: true, status: 200, responseBody: 'partial' });
    expect(Date.now() - started).to.be.below(1500);
  });

  it('sends custom headers without letting them override its own', async () => {
    await send('/ok', {
      customHeaders: {
        'x-tenant': 'acme',
        'Content-Type': 'text/plain',
        'user-agent': 'spoofed',
        'Webhook-Id': 'forged',
      },
    });
    expect(received[0]?.headers).to.include({
      'x-tenant': 'acme',
      'content-type': 'application/json',
      'user-agent': 'identity-service-test/1.0',
      'webhook-id': 'delivery1',
    });
  });

  for (const pooled of [false, true]) {
    it(`cuts a huge, never-ending response body${pooled ? ' on a pooled connection' : ''}`, async () => {
      const agents = pooled ? createWebhookAgents(2) : undefined;
      try {
        const started = Date.now();
        const result = await send('/huge', { timeoutMs: 5000, ...(agents ? { agents } : {}) });
        expect(result).to.include({ ok: true, status: 200 });
        expect(result.responseBody).to.have.length(RESPONSE_BODY_LIMIT);
        expect(Date.now() - started).to.be.below(4000);
        // The sender hangs up rather than reading on: the endless body stops long before its own bound.
        expect(await hugeClosed).to.be.below(5000);
      } finally {
        agents?.destroy();
      }
    });
  }

  it('frees a pooled connection whose endpoint hangs once its time is up', async () => {
    const agents = createWebhookAgents(1);
    try {
      expect(await send('/hang', { timeoutMs: 200, agents })).to.include({ ok: false, error: 'timeout' });
      // The pool's one connection is free again: the next delivery goes out on it and is answered.
      expect(await send('/ok', { agents })).to.include({ ok: true, status: 200 });
    } finally {
      agents.destroy();
    }
  });

  it('reports a refused connection as a network error', async () => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const result = await sendWebhook({
      url: `http://127.0.0.1:${port}/`,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      userAgent: 'test',
      destinations,
    });
    expect(result.ok).to.equal(false);
    expect(result.status).to.equal(undefined);
    expect(result.error).to.match(/ECONNREFUSED/);
  });

  it('never throws, even for an invalid URL or header', async () => {
    const badUrl = await sendWebhook({
      url: 'not a url',
      body: '{}',
      headers: {},
      timeoutMs: 100,
      userAgent: 't',
      destinations,
    });
    expect(badUrl.ok).to.equal(false);
    const badHeader = await send('/ok', { customHeaders: { 'bad header': 'x' } });
    expect(badHeader.ok).to.equal(false);
    expect(badHeader.error).to.be.a('string');
  });

  describe('parseRetryAfter', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    it('reads delta-seconds', () => expect(parseRetryAfter('120', now)).to.equal(120_000));
    it('reads an HTTP date', () => expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).to.equal(30_000));
    it('clamps a past date to zero', () => expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).to.equal(0));
    it('ignores absent or garbage values', () => {
      expect(parseRetryAfter(null, now)).to.equal(undefined);
      expect(parseRetryAfter('soon', now)).to.equal(undefined);
      expect(parseRetryAfter('1.5', now)).to.equal(undefined);
    });
  });
});
