import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  createDestinationPolicy,
  parseNetworks,
  type DestinationPolicy,
  type ResolvedAddress,
  type Resolver,
} from '../../lib/webhooks/destinations.ts';
import { classify } from '../../lib/webhooks/retry-policy.ts';
import { createWebhookAgents, sendWebhook } from '../../lib/webhooks/sender.ts';

/** A loopback endpoint that counts what reaches it. */
async function endpoint(host: string, port = 0): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const send = (url: string, destinations: DestinationPolicy, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 2000, userAgent: 'test', destinations, ...extra });

/** A resolver that answers each call with the next scripted answer, and counts the calls. */
function scriptedResolver(...answers: ResolvedAddress[][]): Resolver & { calls: number } {
  const resolver = Object.assign(
    async () => {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)]!;
      resolver.calls += 1;
      return answer;
    },
    { calls: 0 },
  );
  return resolver;
}

describe('webhook destinations', () => {
  let loopback: Awaited<ReturnType<typeof endpoint>>;

  before(async () => {
    loopback = await endpoint('127.0.0.1');
  });
  after(() => close(loopback.server));
  beforeEach(() => {
    loopback.hits.length = 0;
  });

  const loopbackUrls = () => [
    `http://127.0.0.1:${loopback.port}/plain`,
    `http://2130706433:${loopback.port}/decimal`,
    `http://0x7f.1:${loopback.port}/hex`,
    `http://127.1:${loopback.port}/short`,
    `http://017700000001:${loopback.port}/octal`,
    `http://[::ffff:127.0.0.1]:${loopback.port}/mapped`,
    `http://[::ffff:7f00:1]:${loopback.port}/mapped-hex`,
  ];

  it('refuses every notation of loopback by default, before connecting, naming WEBHOOK_ALLOWED_NETWORKS', async () => {
    const policy = createDestinationPolicy();
    for (const url of loopbackUrls()) {
      const result = await send(url, policy);
      expect(result.ok, url).to.equal(false);
      expect(result.refused, url)
        .to.match(/127\.0\.0\.1|::ffff:7f00:1/)
        .and.match(/WEBHOOK_ALLOWED_NETWORKS/);
      expect(result.error, url).to.equal(result.refused);
      expect(result.status, url).to.equal(undefined);
      expect(classify(result), url).to.equal('final');
    }
    expect(loopback.hits).to.deep.equal([]);
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const result = await send(`http://localhost:${loopback.port}/name`, createDestinationPolicy());
    expect(result.refused).to.match(/^destination localhost \((127\.0\.0\.1|::1)\) is not a public address/);
    expect(loopback.hits).to.deep.equal([]);
  });

  it('delivers to each of them once its network is listed in WEBHOOK_ALLOWED_NETWORKS', async () => {
    const policy = createDestinationPolicy({ allowedNetworks: parseNetworks('127.0.0.0/8, ::1/128') });
    // localhost may resolve to ::1 first, where nothing listens: the connection falls back to 127.0.0.1.
    const urls = [...loopbackUrls(), `http://localhost:${loopback.port}/name`];
    for (const url of urls) expect(await send(url, policy), url).to.include({ ok: true, status: 204 });
    expect(loopback.hits).to.deep.equal(urls.map((url) => new URL(url).pathname));
  });

  it('keeps the fallback between checked addresses of both families', async () => {
    const resolve = scriptedResolver([
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const policy = createDestinationPolicy({ allowedNetworks: parseNetworks('127.0.0.0/8, ::1/128'), resolve });
    // Nothing listens on ::1 at this port, so only the second checked address can answer.
    expect(await send(`http://dual.test:${loopback.port}/dual`, policy)).to.include({ ok: true, status: 204 });
    expect(loopback.hits).to.deep.equal(['/dual']);
  });

  it('classifies every non-public range, IPv4-mapped forms included, and only those', () => {
    const policy = createDestinationPolicy();
    const refused = [
      '0.0.0.0',
      '[::]',
      '[::1]',
      '169.254.169.254',
      '[fe80::1]',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.254',
      '[fc00::1]',
      '[fd12:3456::1]',
      '224.0.0.1',
      '[ff02::1]',
      '240.0.0.1',
      '255.255.255.255',
      '[::ffff:169.254.169.254]',
      '[::ffff:10.0.0.1]',
      '[::ffff:192.168.0.1]',
      '[::ffff:0.0.0.0]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:7f00:1::]',
      '[2001:db8::1]',
    ];
    for (const host of refused) expect(policy.refusalOfLiteral(host), host).to.match(/WEBHOOK_ALLOWED_NETWORKS/);
    const accepted = [
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '[2606:4700::1111]',
      '[::ffff:8.8.8.8]',
      'hooks.example.com',
    ];
    for (const host of accepted) expect(policy.refusalOfLiteral(host), host).to.equal(undefined);
  });

  it('checks every address a name resolves to, refusing without connecting when one is not allowed', async () => {
    const resolve = scriptedResolver([
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const policy = createDestinationPolicy({ allowedNetworks: parseNetworks('127.0.0.2/32'), resolve });
    const result = await send(`http://mixed.test:${loopback.port}/mixed`, policy);
    expect(result.refused).to.match(/mixed\.test \(127\.0\.0\.1\)/);
    expect(loopback.hits).to.deep.equal([]);
  });

  it('connects to the address it checked, even when the name resolves elsewhere by then (no DNS rebinding)', async () => {
    // 127.0.0.2 stands for a public address (the only allowed one); 127.0.0.1 is the inward target, and
    // where the system's own resolution of `localhost` would lead a request that resolved the name again.
    const allowed = await endpoint('127.0.0.2');
    const inward = await endpoint('127.0.0.1', allowed.port);
    const agents = createWebhookAgents(4);
    try {
      const resolve = scriptedResolver([{ address: '127.0.0.2', family: 4 }], [{ address: '127.0.0.1', family: 4 }]);
      const policy = createDestinationPolicy({ allowedNetworks: parseNetworks('127.0.0.2/32'), resolve, cacheMs: 0 });
      const url = `http://localhost:${allowed.port}/event`;
      for (const pool of [undefined, agents]) {
        resolve.calls = 0;
        const result = await send(url, policy, pool ? { agents: pool } : {});
        expect(result).to.include({ ok: true, status: 204 });
        expect(resolve.calls, 'one resolution per request').to.equal(1);
        // The next answer points inward: refused, although a pooled connection to the checked address exists.
        expect((await send(url, policy, pool ? { agents: pool } : {})).refused).to.match(/127\.0\.0\.1/);
      }
      expect(allowed.hits).to.deep.equal(['/event', '/event']);
      expect(inward.hits).to.deep.equal([]);
    } finally {
      agents.destroy();
      await close(allowed.server);
      await close(inward.server);
    }
  });

  it('shares one resolution between the deliveries of a moment, checking it for each, but not a failed one', async () => {
    const resolve = scriptedResolver([{ address: '127.0.0.1', family: 4 }]);
    const allowedPolicy = createDestinationPolicy({
      allowedNetworks: parseNetworks('127.0.0.0/8'),
      resolve,
      cacheMs: 60_000,
    });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => send(`http://burst.test:${loopback.port}/burst`, allowedPolicy)),
    );
    expect(results.map((result) => result.status)).to.deep.equal([204, 204, 204, 204, 204]);
    expect(resolve.calls).to.equal(1);
    // The answer is checked at each delivery: without the allowance, the same answer is refused.
    const strict = createDestinationPolicy({ resolve, cacheMs: 60_000 });
    expect((await send(`http://burst.test:${loopback.port}/burst`, strict)).refused).to.match(
      /WEBHOOK_ALLOWED_NETWORKS/,
    );

    let failures = 0;
    const flaky: Resolver = async () => {
      failures += 1;
      throw new Error('getaddrinfo EAI_AGAIN flaky.test');
    };
    const policy = createDestinationPolicy({ resolve: flaky, cacheMs: 60_000 });
    await send('http://flaky.test/', policy);
    await send('http://flaky.test/', policy);
    expect(failures).to.equal(2);
  });

  it('counts a name that does not resolve as a network error, retried', async () => {
    const resolve: Resolver = () => Promise.reject(new Error('getaddrinfo ENOTFOUND nowhere.test'));
    const result = await send('http://nowhere.test/', createDestinationPolicy({ resolve }));
    expect(result).to.include({ ok: false, error: 'getaddrinfo ENOTFOUND nowhere.test' });
    expect(result.refused).to.equal(undefined);
    expect(classify(result)).to.equal('retry');
  });

  it('times out a resolution that never answers', async () => {
    const resolve: Resolver = () => new Promise<ResolvedAddress[]>(() => {});
    const result = await send('http://stuck.test/', createDestinationPolicy({ resolve }), { timeoutMs: 100 });
    expect(result).to.include({ ok: false, error: 'timeout' });
  });

  it('parses WEBHOOK_ALLOWED_NETWORKS strictly', () => {
    expect(parseNetworks('10.0.0.0/8, fd00::/8,192.168.1.5')).to.deep.equal([
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '192.168.1.5', prefix: 32, family: 'ipv4' },
    ]);
    for (const bad of ['', ' , ', '10.0.0.0/33', '::/129', 'localhost', '10.0.0.0/8,', 'fe80::1%eth0', '10.0.0/8']) {
      expect(() => parseNetworks(bad), bad).to.throw();
    }
  });
});
