import Router from '@koa/router';
import { expect } from 'chai';
import { RouteRegistry, type ApiRouterDeps } from '../../lib/http/api.ts';
import { managementRoutes } from '../../routes/index.ts';
import { startHarness, type Harness } from './support/harness.ts';

describe('OpenAPI document', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('documents every route the management modules put on the router', async () => {
    const router = new Router({ prefix: '/api' });
    const api: ApiRouterDeps = { router, prefix: '/api', registry: new RouteRegistry(), requireScope: () => async (_ctx, next) => next() };
    managementRoutes(api, h.running.service.core);
    const mounted = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`));
    expect(mounted.length).to.be.greaterThan(80);

    const swagger = await h.api('GET', '/swagger.json');
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(swagger.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    expect(mounted.filter((route) => !documented.has(route)), 'routes missing from /api/swagger.json').to.deep.equal([]);
  });

  it('describes request bodies, path parameters and responses of the identity-data routes', async () => {
    const swagger = await h.api('GET', '/swagger.json');
    const paths = swagger.body.paths;
    const createUser = paths['/api/users'].post;
    expect(createUser.requestBody.content['application/json'].schema.properties).to.include.keys('username', 'password', 'customData');
    expect(createUser.responses['201'].content['application/json'].schema.properties).to.include.keys('hasPassword');
    expect(createUser.responses['201'].content['application/json'].schema.properties).not.to.have.any.keys('password', 'passwordDigest');
    const memberRoles = paths['/api/organizations/{id}/users/{userId}/roles/{organizationRoleId}'].delete;
    expect(memberRoles.parameters.map((p: { name: string }) => p.name)).to.deep.equal(['id', 'userId', 'organizationRoleId']);
    const status = paths['/api/organization-invitations/{id}/status'].put;
    expect(status.requestBody.content['application/json'].schema.properties.status.enum).to.deep.equal(['Accepted', 'Revoked']);
  });
});
