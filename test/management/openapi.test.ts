import Router from '@koa/router';
import { expect } from 'chai';
import { RouteRegistry, type ApiRouterDeps } from '../../lib/http/api.ts';
import { managementRoutes } from '../../routes/index.ts';
import { startHarness, type Harness } from '../support/management/harness.ts';

describe('OpenAPI document', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('documents every route the management modules put on the router', async () => {
    const router = new Router({ prefix: '/api' });
    const api: ApiRouterDeps = {
      router,
      prefix: '/api',
      registry: new RouteRegistry(),
      requireScope: () => async (_ctx, next) => next(),
    };
    managementRoutes(api, h.running.service.core);
    const mounted = router.stack.flatMap((layer) =>
      layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`),
    );
    expect(mounted.length).to.be.greaterThan(80);

    const swagger = await h.api('GET', '/swagger.json');
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(swagger.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations))
        documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    expect(
      mounted.filter((route) => !documented.has(route)),
      'routes missing from /api/swagger.json',
    ).to.deep.equal([]);
  });

  it('describes request bodies, path parameters and responses of the identity-data routes', async () => {
    const swagger = await h.api('GET', '/swagger.json');
    const paths = swagger.body.paths;
    const createUser = paths['/api/users'].post;
    expect(createUser.requestBody.content['application/json'].schema.properties).to.include.keys(
      'username',
      'password',
      'customData',
    );
    expect(createUser.responses['201'].content['application/json'].schema.properties).to.include.keys('hasPassword');
    expect(createUser.responses['201'].content['application/json'].schema.properties).not.to.have.any.keys(
      'password',
      'passwordDigest',
    );
    const memberRoles = paths['/api/organizations/{id}/users/{userId}/roles/{organizationRoleId}'].delete;
    expect(memberRoles.parameters.map((p: { name: string }) => p.name)).to.deep.equal([
      'id',
      'userId',
      'organizationRoleId',
    ]);
    const status = paths['/api/organization-invitations/{id}/status'].put;
    expect(status.requestBody.content['application/json'].schema.properties.status.enum).to.deep.equal([
      'Accepted',
      'Revoked',
    ]);
  });

  it('documents the impersonation endpoints, the revocation listing under resource-server authentication', async () => {
    const swagger = await h.api('GET', '/swagger.json');
    const { paths, components } = swagger.body;
    const json = (
      operation: {
        responses: Record<string, { content: Record<string, { schema: { items?: unknown; properties?: object } }> }>;
      },
      status = '200',
    ) => operation.responses[status]!.content['application/json']!.schema;
    const listed = paths['/api/impersonations'].get;
    expect(listed.security).to.deep.equal([{ bearer: ['all'] }]);
    expect(listed.parameters.map((p: { name: string }) => p.name)).to.include.members([
      'userId',
      'applicationId',
      'actorId',
      'status',
      'page',
      'page_size',
    ]);
    expect(listed.parameters.find((p: { name: string }) => p.name === 'status').schema.enum).to.deep.equal([
      'active',
      'expired',
      'revoked',
      'ended',
    ]);
    expect((json(listed).items as { properties: object }).properties).to.include.keys(
      'id',
      'reason',
      'status',
      'expiresAt',
      'revokedAt',
    );
    for (const path of [
      '/api/impersonations/{id}',
      '/api/impersonations/{id}/revoke',
      '/api/users/{userId}/impersonations/revoke',
    ]) {
      expect(paths[path], path).to.be.an('object');
    }
    expect(paths['/api/subject-tokens'].post.requestBody.content['application/json'].schema.properties).to.include.keys(
      'userId',
      'reason',
      'context',
    );
    expect(
      paths['/api/sign-in-exp'].patch.requestBody.content['application/json'].schema.properties.impersonation
        .properties,
    ).to.have.keys('requireReason', 'notifyByEmail');

    const revocations = paths['/api/impersonation-revocations'].get;
    expect(revocations.security).to.deep.equal([{ resourceServer: [] }]);
    expect(revocations.responses).to.include.keys('200', '401', '403');
    expect(revocations.parameters.map((p: { name: string }) => p.name)).to.deep.equal(['after', 'limit']);
    expect(json(revocations).properties).to.have.keys('revocations', 'next');
    expect(components.securitySchemes.resourceServer).to.include({ type: 'http', scheme: 'basic' });
    const mine = paths['/api/my-account/impersonations'].get;
    expect(mine.security).to.deep.equal([{ user: ['openid'] }]);
    expect((json(mine).items as { properties: object }).properties).not.to.have.any.keys('context', 'subjectTokenRef');
  });
});
