import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { readEnvironment, ConfigurationError } from '../../lib/config.ts';
import { resolveSettings } from '../../lib/settings.ts';
import { freePort, serviceFreeEnv } from '../support/processes.ts';
import { tempDataDir } from '../support/sqlite.ts';

const SERVER = fileURLToPath(new URL('../../bin/server.ts', import.meta.url));
const dataDirs: string[] = [];
after(() => {
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `node bin/server.ts` as `npm start` does (on a data directory of its own) and collects its output. */
function start(env: Record<string, string>) {
  const dataDir = tempDataDir();
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, [SERVER], {
    env: { ...serviceFreeEnv(), DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output, exited };
}

async function until(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('standalone server (npm start)', () => {
  let running:
    | { child: ChildProcess; output: { stdout: string; stderr: string }; exited: Promise<number | null> }
    | undefined;
  afterEach(() => running?.child.kill('SIGKILL'));

  it('starts on embedded storage, prints generated admin credentials once, serves discovery and JWKS, and stops gracefully', async () => {
    const port = await freePort();
    running = start({ PORT: String(port), LOG_LEVEL: 'info' });
    await until(() => /"msg":"ready/.test(running!.output.stdout), 'the ready line');
    const readyLines = running.output.stdout.split('\n').filter((line) => line.includes('"msg":"ready'));
    expect(readyLines).to.have.length(1);
    const id = /ADMIN_CLIENT_ID=(\S+)/.exec(running.output.stdout)?.[1];
    const secret = /ADMIN_CLIENT_SECRET=(\S+)/.exec(running.output.stdout)?.[1];
    expect(id).to.be.a('string');
    expect(secret).to.be.a('string');
    expect(running.output.stdout.split(secret!).length - 1, 'the secret is printed exactly once').to.equal(1);

    const base = `http://localhost:${port}`;
    const discovery = (await (await fetch(`${base}/oidc/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(discovery.issuer).to.equal(`${base}/oidc`);
    expect(discovery.grant_types_supported).to.include.members([
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    const jwks = (await (await fetch(`${base}/oidc/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.keys[0]).not.to.have.property('d');

    const token = await fetch(`${base}/oidc/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${base}/api`, scope: 'all' }),
    });
    expect(token.status).to.equal(200);
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);

    running.child.kill('SIGTERM');
    expect(await running.exited).to.equal(0);
    expect(running.output.stdout).not.to.match(/"level":50/);
  });

  it('in memory (STORAGE=memory), creates and prints new admin credentials at every start, and says so', async () => {
    const secrets: string[] = [];
    for (let round = 0; round < 2; round += 1) {
      running = start({ PORT: String(await freePort()), LOG_LEVEL: 'info', STORAGE: 'memory' });
      await until(() => /"msg":"ready/.test(running!.output.stdout), 'the ready line');
      expect(running.output.stdout).to.include(
        'Management API credentials (created now; embedded storage keeps them only ' +
          'until this process exits, so each start creates new ones: set ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET to keep the same):',
      );
      secrets.push(/ADMIN_CLIENT_SECRET=(\S+)/.exec(running.output.stdout)![1]!);
      running.child.kill('SIGTERM');
      expect(await running.exited).to.equal(0);
    }
    expect(secrets[0]).not.to.equal(secrets[1]);
  });

  /** Whether a TCP connection to `host`:`port` is accepted. */
  async function accepts(host: string, port: number): Promise<boolean> {
    const socket = connect({ host, port });
    const [outcome] = await Promise.race([once(socket, 'connect').then(() => ['connected']), once(socket, 'error')]);
    socket.destroy();
    return outcome === 'connected';
  }

  it('listens on 127.0.0.1 only by default, and only on the address HOST names', async () => {
    const port = await freePort();
    running = start({ PORT: String(port), LOG_LEVEL: 'info' });
    await until(() => /"msg":"ready/.test(running!.output.stdout), 'the ready line');
    expect(running.output.stdout).to.include(
      `"msg":"ready: listening on 127.0.0.1:${port}, serving http://localhost:${port}`,
    );
    // Every other address of the machine, loopback ones included, is refused: 127.0.0.2 is as local as it gets.
    expect(await accepts('127.0.0.1', port)).to.equal(true);
    expect(await accepts('127.0.0.2', port)).to.equal(false);
    expect(await accepts('::1', port)).to.equal(false);
    running.child.kill('SIGTERM');
    expect(await running.exited).to.equal(0);

    const other = await freePort();
    running = start({ PORT: String(other), HOST: '127.0.0.2', LOG_LEVEL: 'info' });
    await until(() => /"msg":"ready/.test(running!.output.stdout), 'the ready line');
    expect(running.output.stdout).to.include(`"msg":"ready: listening on 127.0.0.2:${other}`);
    expect(await accepts('127.0.0.2', other)).to.equal(true);
    expect(await accepts('127.0.0.1', other)).to.equal(false);
  });

  it('refuses a HOST that is no address, and one this machine does not have, each in one line', async () => {
    running = start({ HOST: 'not an address', PORT: String(await freePort()) });
    expect(await running.exited).to.equal(2);
    expect(running.output.stderr).to.match(/^ {2}HOST: an IP address/m);
    // TEST-NET-1 (RFC 5737) is never assigned to a local interface.
    const port = await freePort();
    running = start({ HOST: '192.0.2.1', PORT: String(port) });
    expect(await running.exited).to.equal(1);
    expect(running.output.stderr.trim().split('\n')).to.deep.equal([
      `cannot listen on 192.0.2.1:${port}: no such address on this machine (EADDRNOTAVAIL)`,
    ]);
    expect(running.output.stdout).not.to.match(/ADMIN_CLIENT_SECRET/);
  });

  it('refuses production in memory with a clear message', async () => {
    running = start({ NODE_ENV: 'production', STORAGE: 'memory', PORT: String(await freePort()) });
    expect(await running.exited).to.equal(2);
    expect(running.output.stderr).to.match(
      /^STORAGE=memory is refused with NODE_ENV=production: it loses everything on restart/,
    );
  });
});

describe('configuration', () => {
  it('lists every invalid variable at once', () => {
    let error: unknown;
    try {
      readEnvironment({
        PORT: 'eighty',
        WEBHOOK_RETRY_DELAYS_MS: '5,x',
        ADMIN_CLIENT_SECRET: 'short',
        BASE_URL: 'not a url',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ConfigurationError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'WEBHOOK_RETRY_DELAYS_MS', 'ADMIN_CLIENT_SECRET', 'BASE_URL'])
      expect(message).to.include(name);
  });

  it('derives the issuer and management resource from BASE_URL, runs production on SQLite, and refuses it in memory', () => {
    const settings = resolveSettings({ BASE_URL: 'https://id.example.com/auth/', PORT: '8080' });
    expect(settings.issuer).to.equal('https://id.example.com/auth/oidc');
    expect(settings.managementIndicator).to.equal('https://id.example.com/auth/api');
    expect(resolveSettings({ PORT: '8080' }).baseUrl).to.equal('http://localhost:8080');
    expect(resolveSettings({ NODE_ENV: 'production' })).to.deep.include({
      storage: 'sqlite',
      embedded: { documents: true, keyValue: true },
    });
    expect(() => resolveSettings({ NODE_ENV: 'production', STORAGE: 'memory' })).to.throw(
      ConfigurationError,
      /STORAGE=memory is refused/,
    );
    expect(() =>
      resolveSettings({ STORAGE: 'sqlite', MONGODB_URI: 'mongodb://db:27017/x', REDIS_URL: 'redis://r:6379' }),
    ).to.throw(ConfigurationError, /STORAGE=sqlite has no effect/);
    expect(() => resolveSettings({ SQLITE_SYNCHRONOUS: 'OFF' })).to.throw(ConfigurationError, /SQLITE_SYNCHRONOUS/);
    expect(() => resolveSettings({ ADMIN_CLIENT_ID: 'only-id' })).to.throw(/set together/);
  });
});
