import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serviceFreeEnv } from '../support/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT_MS = 20_000;

/** Runs a script of the project with a clean environment plus `env`, until it exits (killed past LIMIT_MS). */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...serviceFreeEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...output });
    }),
  );
}

describe('starting the service', () => {
  let holder: Server | undefined;
  afterEach(async () => {
    if (holder) await new Promise((resolve) => holder!.close(resolve));
    holder = undefined;
  });

  it('stops with one clear line and exit code 1 when the port is taken, before any credentials exist', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    const { code, stdout, stderr } = await run(['bin/server.ts'], { PORT: String(port), LOG_LEVEL: 'info' });
    expect(code).to.equal(1);
    expect(stderr.trim().split('\n')).to.deep.equal([
      `cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)`,
    ]);
    expect(stdout).not.to.match(/ADMIN_CLIENT_SECRET|credentials/);
  });

  for (const [script, name] of [
    ['bin/server.ts', 'server'],
    ['bin/worker.ts', 'worker'],
  ] as const) {
    it(`reports an invalid LOG_LEVEL with the other configuration problems, without a stack trace (${name})`, async () => {
      const { code, stdout, stderr } = await run([script], { LOG_LEVEL: 'loud', PORT: 'eighty' });
      expect(code).to.equal(2);
      expect(stderr).to.match(/^invalid configuration:\n/);
      expect(stderr).to.match(/^ {2}LOG_LEVEL: .*"fatal".*"silent"/m);
      expect(stderr).to.match(/^ {2}PORT: /m);
      expect(stderr).not.to.match(/^\s+at /m);
      expect(stdout).to.equal('');
    });
  }
});

describe('log redaction', () => {
  it("keeps an error's code and still hides credentials and codes sent in requests", async () => {
    const script = `
      import { createLogger } from './lib/logger.ts';
      const error = Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' });
      createLogger('info').warn({
        err: error, body: { code: '123456', password: 'hunter2' }, params: { code: 'auth-code' },
        client: { secret: 's3cret' }, req: { headers: { authorization: 'Bearer t0ken' } },
      }, 'probe');
    `;
    const { code, stdout } = await run(['--input-type=module', '-e', script], {});
    expect(code).to.equal(0);
    const line = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    expect(line.err).to.include({ code: 'ECONNREFUSED', message: 'connect refused' });
    expect(line.body).to.deep.equal({ code: '[redacted]', password: '[redacted]' });
    expect(line.params).to.deep.equal({ code: '[redacted]' });
    expect(line.client).to.deep.equal({ secret: '[redacted]' });
    expect(stdout).not.to.match(/123456|hunter2|auth-code|s3cret|t0ken/);
  });
});
