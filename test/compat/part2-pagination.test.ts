import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Lists Logto answers in full without `page` / `page_size` do so here too, and still page when asked. */
describe('Logto compatibility: optional pagination', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const MORE_THAN_A_PAGE = 22;

  async function expectOptional(path: string, create: () => Promise<unknown>): Promise<void> {
    for (let index = 0; index < MORE_THAN_A_PAGE; index += 1) await create();
    const all = await h.api('GET', path);
    expect(all.status, path).to.equal(200);
    expect(all.body.length, path).to.be.at.least(MORE_THAN_A_PAGE);
    expect(all.headers.get('total-number'), path).to.equal(String(all.body.length));
    const paged = await h.api('GET', `${path}${path.includes('?') ? '&' : '?'}page=2&page_size=5`);
    expect(paged.body, path).to.have.length(5);
    expect(paged.body[0].id, path).to.equal(all.body[5].id);
    const defaultSize = await h.api('GET', `${path}${path.includes('?') ? '&' : '?'}page=1`);
    expect(defaultSize.body, path).to.have.length(20);
  }

  it('answers every hook, resource, application and organization scope without page parameters', async () => {
    await expectOptional('/hooks', () =>
      ok(
        h.api('POST', '/hooks', {
          name: unique('hook'),
          events: ['User.Created'],
          config: { url: 'http://127.0.0.1:9/hook' },
        }),
      ),
    );
    await expectOptional('/resources', () =>
      ok(
        h.api('POST', '/resources', {
          name: unique('api'),
          indicator: `https://${unique('api').toLowerCase()}.example.com`,
        }),
      ),
    );
    await expectOptional('/applications', () => fixtures(h).m2mApplication());
    await expectOptional('/organization-scopes', () => fixtures(h).organizationScope());
  });

  it('answers every JIT email domain and every scope of a role without page parameters', async () => {
    const org = await fixtures(h).organization();
    let domain = 0;
    await expectOptional(`/organizations/${org.id}/jit/email-domains`, () =>
      ok(
        h.api('POST', `/organizations/${org.id}/jit/email-domains`, {
          emailDomain: `d${++domain}.example.com`,
        }),
      ),
    );
    const { scopes } = await fixtures(h).resourceWithScopes(MORE_THAN_A_PAGE);
    const role = await fixtures(h).role({ scopeIds: scopes.map((scope: { id: string }) => scope.id) });
    const all = await ok(h.api('GET', `/roles/${role.id}/scopes`));
    expect(all).to.have.length(MORE_THAN_A_PAGE);
  });

  it('answers every organization role of a member application without page parameters', async () => {
    const org = await fixtures(h).organization();
    const app = await fixtures(h).m2mApplication();
    await ok(h.api('POST', `/organizations/${org.id}/applications`, { applicationIds: [app.id] }));
    await expectOptional(`/organizations/${org.id}/applications/${app.id}/roles`, async () => {
      const role = await fixtures(h).organizationRole({ type: 'MachineToMachine' });
      await ok(
        h.api('POST', `/organizations/${org.id}/applications/${app.id}/roles`, { organizationRoleIds: [role.id] }),
      );
    });
  });

  it("answers every invitation of an organization without page parameters (Logto's list has no pagination)", async () => {
    const org = await fixtures(h).organization();
    await expectOptional(`/organization-invitations?organizationId=${org.id}`, () =>
      ok(
        h.api('POST', '/organization-invitations', {
          organizationId: org.id,
          invitee: `${unique('invitee').toLowerCase()}@example.com`,
          expiresAt: Date.now() + 3_600_000,
        }),
      ),
    );
  });

  it('keeps the required pagination of the lists Logto pages by default (users: 20 a page)', async () => {
    for (let index = 0; index < 21; index += 1) await fixtures(h).user();
    const users = await h.api('GET', '/users');
    expect(users.body).to.have.length(20);
    expect(Number(users.headers.get('total-number'))).to.be.at.least(21);
  });

  it('lists resources with their scopes when includeScopes=true', async () => {
    const { resource, scopes } = await fixtures(h).resourceWithScopes(2);
    const listed = await ok(h.api('GET', '/resources?includeScopes=true'));
    const found = listed.find((item: { id: string }) => item.id === resource.id);
    expect(found.scopes.map((scope: { id: string }) => scope.id)).to.deep.equal(
      scopes.map((scope: { id: string }) => scope.id),
    );
    const without = await ok(h.api('GET', '/resources'));
    expect(without.find((item: { id: string }) => item.id === resource.id)).not.to.have.property('scopes');
  });
});
