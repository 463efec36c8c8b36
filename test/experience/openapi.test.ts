import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { json } from '../support/experience.ts';

describe('Experience API in the OpenAPI document', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('documents every route, without bearer security, with its body and statuses', async () => {
    const paths = (await json(running.request('/api/swagger.json'))).paths;
    const operations = [
      ['put', '/api/experience'],
      ['put', '/api/experience/interaction-event'],
      ['get', '/api/experience/interaction'],
      ['post', '/api/experience/verification/password'],
      ['post', '/api/experience/verification/verification-code'],
      ['post', '/api/experience/verification/verification-code/verify'],
      ['post', '/api/experience/identification'],
      ['post', '/api/experience/profile'],
      ['put', '/api/experience/profile/password'],
      ['post', '/api/experience/submit'],
    ] as const;
    for (const [method, path] of operations) {
      const operation = paths[path]?.[method];
      expect(operation, `${method.toUpperCase()} ${path}`).to.be.an('object');
      expect(operation.tags).to.deep.equal(['Experience']);
      expect(operation).not.to.have.property('security');
    }
    const identification = paths['/api/experience/identification'].post;
    expect(identification.responses).to.include.keys('201', '204');
    const password = paths['/api/experience/verification/password'].post;
    expect(password.requestBody.content['application/json'].schema.properties).to.have.keys('identifier', 'password');
    expect(
      paths['/api/experience/submit'].post.responses['200'].content['application/json'].schema.properties,
    ).to.have.keys('redirectTo');
    expect(paths['/api/organizations/{id}/jit/roles/{organizationRoleId}'].delete).to.be.an('object');
  });
});
