import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe('methods a route does not serve', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('answer 405 route.method_not_allowed with Allow on every documented path, before authentication', async () => {
    const document = (await (await running.request('/api/swagger.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(document.paths);
    expect(paths.length).to.be.greaterThan(20);
    const patterns = paths.map(([path, operations]) => ({
      regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      methods: Object.keys(operations),
    }));
    // `DELETE /organizations/x/users/roles` is a request of `DELETE /organizations/{id}/users/{userId}`, not a wrong method.
    const servedByAnother = (method: string, concrete: string) =>
      patterns.some((pattern) => pattern.methods.includes(method) && pattern.regex.test(concrete));
    let checked = 0;
    for (const [path, operations] of paths) {
      // A value no literal segment uses, so the concrete path matches only this route's pattern.
      const concrete = path.replace(/\{[^}]+\}/g, 'zz-probe');
      const served = Object.keys(operations);
      for (const method of METHODS.filter(
        (candidate) => !served.includes(candidate) && !servedByAnother(candidate, concrete),
      )) {
        const res = await fetch(`${running.baseUrl}${concrete}`, {
          method: method.toUpperCase(),
          headers: method === 'get' ? {} : { 'content-type': 'application/json' },
          body: method === 'get' ? undefined : '{}',
        });
        const body = (await res.json()) as { code: string };
        expect({ route: `${method.toUpperCase()} ${path}`, status: res.status, code: body.code }).to.deep.equal({
          route: `${method.toUpperCase()} ${path}`,
          status: 405,
          code: 'route.method_not_allowed',
        });
        const allow = (res.headers.get('allow') ?? '').split(', ');
        expect(allow, `Allow of ${path}`).to.include.members(served.map((name) => name.toUpperCase()));
        checked += 1;
      }
    }
    expect(checked).to.be.greaterThan(50);
  });

  it('answer 405 to a method the router does not know, and 404 route.not_found to a path nothing serves', async () => {
    const unknown = await running.request('/api/users', { method: 'PROPFIND' });
    expect(unknown.status).to.equal(405);
    expect(await unknown.json()).to.include({ code: 'route.method_not_allowed' });
    for (const path of ['/api', '/api/no-such-thing', '/api/users/zz-probe/no-such-thing']) {
      const res = await running.request(path);
      expect(res.status, path).to.equal(404);
      expect(await res.json()).to.include({ code: 'route.not_found' });
    }
  });
});
