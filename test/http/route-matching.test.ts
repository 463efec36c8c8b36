import Router from '@koa/router';
import { expect } from 'chai';
import { rememberStaticMatches } from '../../lib/http/api.ts';

/** Remembered matches answer exactly as koa-router's own matching, also once routes are added. */
describe('remembered static route matches', () => {
  const routes = (router: Router, path: string, method: string) => {
    const result = router.match(path, method);
    return {
      path: result.path.map((layer) => layer.path),
      pathAndMethod: result.pathAndMethod.map((layer) => layer.path),
      route: result.route,
    };
  };

  it('answers as the router does, for static and parameterised paths, before and after routes are added', () => {
    const plain = new Router({ prefix: '/api' });
    const remembering = new Router({ prefix: '/api' });
    rememberStaticMatches(remembering, 2);
    const add = (path: string, method: 'get' | 'post') => {
      for (const router of [plain, remembering]) router[method](path, async () => {});
    };
    add('/users', 'get');
    add('/users/:id', 'get');
    add('/tokens', 'post');
    const requests = [
      ['/api/users', 'GET'],
      ['/api/users', 'POST'],
      ['/api/users/u1', 'GET'],
      ['/api/tokens', 'POST'],
      ['/api/TOKENS', 'POST'],
      ['/api/nothing', 'GET'],
      ['/api/users', 'GET'],
    ] as const;
    const check = () => {
      for (const [path, method] of requests) {
        for (let i = 0; i < 2; i += 1)
          expect(routes(remembering, path, method), `${method} ${path}`).to.deep.equal(routes(plain, path, method));
      }
    };
    check();
    add('/users', 'post');
    add('/tokens', 'post');
    check();
    // What a request does with the lists it was handed does not change the next answer.
    remembering.match('/api/users', 'GET').path.length = 0;
    check();
  });
});
