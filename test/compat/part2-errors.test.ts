import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../management-data/support/harness.ts';

/** Logto's error codes where Logto has one for the case; 409 (not Logto's 422) stays for conflicts. */
describe('Logto compatibility: error codes', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers entity.not_exists_with_id for an id that names nothing', async () => {
    for (const path of ['/users/nope', '/roles/nope', '/applications/nope', '/resources/nope', '/organizations/nope', '/hooks/nope']) {
      const res = await h.api('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.code, path).to.equal('entity.not_exists_with_id');
    }
  });

  it("answers Logto's codes for identifiers, role names and resource indicators in use", async () => {
    const username = unique('taken');
    const holder = await fixtures(h).user({ username, primaryEmail: `${username}@example.com`, primaryPhone: '15550001111' });
    const cases: Array<[Record<string, string>, string]> = [
      [{ username }, 'user.username_already_in_use'],
      [{ primaryEmail: `${username}@example.com` }, 'user.email_already_in_use'],
      [{ primaryPhone: '15550001111' }, 'user.phone_already_in_use'],
    ];
    for (const [body, code] of cases) {
      const created = await h.api('POST', '/users', body);
      expect(created.status, code).to.equal(409);
      expect(created.body.code).to.equal(code);
    }
    const other = await fixtures(h).user();
    const patched = await h.api('PATCH', `/users/${other.id}`, { primaryEmail: holder.primaryEmail });
    expect(patched.body.code).to.equal('user.email_already_in_use');

    const role = await fixtures(h).role();
    const sameName = await h.api('POST', '/roles', { name: role.name });
    expect([sameName.status, sameName.body.code]).to.deep.equal([409, 'role.name_in_use']);

    const indicator = `https://${unique('api').toLowerCase()}.example.com`;
    await ok(h.api('POST', '/resources', { name: 'first', indicator }));
    const sameIndicator = await h.api('POST', '/resources', { name: 'second', indicator });
    expect([sameIndicator.status, sameIndicator.body.code]).to.deep.equal([409, 'resource.resource_identifier_in_use']);
  });
});
