import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import request from 'supertest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What library users get from the package: compiled JavaScript in dist/ (Node does not strip types inside
 * node_modules). The build is imported and exercised, including the sandbox's worker file.
 */
describe('the published build', function () {
  this.timeout(120_000);

  it('compiles to dist/ and serves the console, exchanges tokens and runs customizer scripts from JavaScript', async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/.bin/tsc', import.meta.url));
    await promisify(execFile)(tsc, ['-p', 'tsconfig.build.json'], { cwd: root });
    const entry = new URL('../../dist/lib/index.js', import.meta.url).href;
    const { createIdentityService } = await import(entry) as typeof import('../../lib/index.ts');
    const service = await createIdentityService({
      env: { BASE_URL: 'http://127.0.0.1:1', ADMIN_CLIENT_ID: 'dist-admin', ADMIN_CLIENT_SECRET: 'dist-admin-secret-0123' },
      logger: pino({ level: 'silent' }), print: () => {},
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
      const token = await request(app).post('/oidc/token').auth('dist-admin', 'dist-admin-secret-0123').type('form')
        .send({ grant_type: 'client_credentials', resource: 'http://127.0.0.1:1/api', scope: 'all' });
      expect(token.status).to.equal(200);
      const claims = await request(app).post('/api/configs/jwt-customizer/test')
        .set('authorization', `Bearer ${token.body.access_token}`)
        .send({ script: 'const getCustomJwtClaims = () => ({ compiled: true });' });
      expect(claims.status).to.equal(200);
      expect(claims.body).to.deep.equal({ compiled: true });
    } finally {
      await service.close();
    }
  });
});
