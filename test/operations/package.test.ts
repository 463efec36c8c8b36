import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import request from 'supertest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const tsc = fileURLToPath(new URL('../../node_modules/.bin/tsc', import.meta.url));

/** The example of mounting the service into a Koa app, as docs/operations.md prints it. */
function documentedExample(): string {
  const readme = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Mounting into a Koa app'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!example) throw new Error('docs/operations.md has no TypeScript example under "Mounting into a Koa app"');
  return example;
}

/**
 * What library users get from the package: compiled JavaScript in dist/ (Node does not strip types inside
 * node_modules). The build is imported and exercised, including the sandbox's worker file.
 */
describe('the published build', function () {
  this.timeout(120_000);

  it('compiles to dist/ and serves the console, exchanges tokens and runs customizer scripts from JavaScript', async () => {
    await run(tsc, ['-p', 'tsconfig.build.json'], { cwd: root });
    const entry = new URL('../../dist/app/index.js', import.meta.url).href;
    const { createIdentityService } = (await import(entry)) as typeof import('../../app/index.ts');
    const service = await createIdentityService({
      env: {
        STORAGE: 'memory',
        BASE_URL: 'http://127.0.0.1:1',
        ADMIN_CLIENT_ID: 'dist-admin',
        ADMIN_CLIENT_SECRET: 'dist-admin-secret-0123',
      },
      logger: pino({ level: 'silent' }),
      print: () => {},
    });
    try {
      const app = service.app.callback();
      const discovery = await request(app).get('/oidc/.well-known/openid-configuration');
      expect(discovery.status).to.equal(200);
      // The console's bundle is found from the compiled code too (the package ships console/dist beside dist/).
      const consolePage = await request(app).get('/console');
      expect(consolePage.status).to.equal(200);
      const script = /<script type="module" src="([^"]+)"/.exec(consolePage.text)?.[1];
      expect((await request(app).get(script!)).status).to.equal(200);
      const token = await request(app)
        .post('/oidc/token')
        .auth('dist-admin', 'dist-admin-secret-0123')
        .type('form')
        .send({ grant_type: 'client_credentials', resource: 'http://127.0.0.1:1/api', scope: 'all' });
      expect(token.status).to.equal(200);
      const claims = await request(app)
        .post('/api/configs/jwt-customizer/test')
        .set('authorization', `Bearer ${token.body.access_token}`)
        .send({ script: 'const getCustomJwtClaims = () => ({ compiled: true });' });
      expect(claims.status).to.equal(200);
      expect(claims.body).to.deep.equal({ compiled: true });
    } finally {
      await service.close();
    }
  });

  it('packs into a package whose types a strict TypeScript host compiles the documented example against', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-host-'));
    try {
      // `npm pack` builds first (prepack) and reads nothing from the registry; this Node runs the build.
      await run('npm', ['pack', '--pack-destination', dir], {
        cwd: root,
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
        maxBuffer: 16 * 1024 * 1024,
      });
      const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
      expect(tarball, 'the packed package').to.be.a('string');
      const host = join(dir, 'host');
      const installed = join(host, 'node_modules', 'identity-service');
      mkdirSync(installed, { recursive: true });
      await run('tar', ['-xzf', join(dir, tarball!), '-C', installed, '--strip-components=1']);

      // Offline, what `npm install` would put beside it: its dependencies, and the host's own (Koa, koa-mount, Node's
      // types), each linked from this checkout. Nothing else of the checkout is reachable from the package.
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const name of [...Object.keys(manifest.dependencies), 'koa-mount', '@types/koa-mount', '@types/node']) {
        mkdirSync(dirname(join(host, 'node_modules', name)), { recursive: true });
        symlinkSync(join(root, 'node_modules', name), join(host, 'node_modules', name));
      }
      writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
      // Strict, and checking the package's declarations too: a missing type package would otherwise pass as `any`.
      writeFileSync(
        join(host, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'es2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ['node'],
          },
          include: ['app.ts'],
        }),
      );
      writeFileSync(join(host, 'app.ts'), documentedExample());
      const errors = await run(tsc, ['-p', host], { cwd: host }).then(
        ({ stdout }) => stdout,
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(errors).to.equal('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
