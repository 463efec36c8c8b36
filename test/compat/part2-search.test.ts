import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Logto's search parameters (`search`, `search.<field>`, `mode.<field>`, `joint`, `isCaseSensitive`) and strict lists. */
describe('Logto compatibility: search and filters', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const q = (params: Record<string, string | string[]>) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) for (const one of [value].flat()) search.append(key, one);
    return search.toString();
  };
  const ids = (body: Array<{ id: string }>) => body.map((item) => item.id);

  it('looks a user up by email with search.primaryEmail and mode exact, never answering the whole list', async () => {
    const tag = unique('who').toLowerCase();
    const alice = await fixtures(h).user({ primaryEmail: `${tag}.alice@example.com` });
    await fixtures(h).user({ primaryEmail: `${tag}.bob@example.com` });
    const found = await ok(
      h.api('GET', `/users?${q({ 'search.primaryEmail': `${tag}.ALICE@example.com`, 'mode.primaryEmail': 'exact' })}`),
    );
    expect(ids(found)).to.deep.equal([alice.id]);
    const none = await ok(
      h.api('GET', `/users?${q({ 'search.primaryEmail': `${tag}.nobody@example.com`, 'mode.primaryEmail': 'exact' })}`),
    );
    expect(none).to.deep.equal([]);
    const caseSensitive = await ok(
      h.api(
        'GET',
        `/users?${q({
          'search.primaryEmail': `${tag}.ALICE@example.com`,
          'mode.primaryEmail': 'exact',
          isCaseSensitive: 'true',
        })}`,
      ),
    );
    expect(caseSensitive).to.deep.equal([]);
  });

  it('treats search as a LIKE pattern: % and _ are the only wildcards, everything else is literal', async () => {
    const tag = unique('like').toLowerCase();
    const [one, two] = [
      await fixtures(h).user({ username: `${tag}_one` }),
      await fixtures(h).user({ username: `${tag}_two` }),
    ];
    expect(ids(await ok(h.api('GET', `/users?${q({ search: `%${tag}%` })}`)))).to.have.members([one.id, two.id]);
    // Without a wildcard the pattern is the whole value, case-insensitively.
    expect(ids(await ok(h.api('GET', `/users?${q({ search: `${tag.toUpperCase()}_ONE` })}`)))).to.deep.equal([one.id]);
    expect(ids(await ok(h.api('GET', `/users?${q({ search: tag })}`)))).to.deep.equal([]);
    expect(ids(await ok(h.api('GET', `/users?${q({ search: `${tag}_o_e` })}`)))).to.deep.equal([one.id]);
    expect(await ok(h.api('GET', `/users?${q({ search: `${tag}.*` })}`))).to.deep.equal([]);
    expect(await ok(h.api('GET', `/users?${q({ search: '(a+)+$[' })}`))).to.deep.equal([]);
  });

  it('combines conditions with joint and takes several exact values of one field', async () => {
    const tag = unique('jt').toLowerCase();
    const ann = await fixtures(h).user({ username: `${tag}_ann`, name: 'Ann Example' });
    const ben = await fixtures(h).user({ username: `${tag}_ben`, name: 'Ben Example' });
    const and = await ok(
      h.api('GET', `/users?${q({ 'search.username': `${tag}%`, 'search.name': 'ann%', joint: 'and' })}`),
    );
    expect(ids(and)).to.deep.equal([ann.id]);
    const or = await ok(
      h.api('GET', `/users?${q({ 'search.username': `${tag}_ann`, 'search.name': 'ben example', joint: 'or' })}`),
    );
    expect(ids(or)).to.have.members([ann.id, ben.id]);
    const several = await ok(
      h.api('GET', `/users?${q({ 'search.username': [`${tag}_ann`, `${tag}_ben`], 'mode.username': 'exact' })}`),
    );
    expect(ids(several)).to.have.members([ann.id, ben.id]);
  });

  it('refuses with 400 what it cannot honour: unknown parameters, fields and modes, bad values', async () => {
    const refusals: Array<[string, string]> = [
      ['/users?primaryEmail=a@example.com', 'primaryEmail'],
      ['/users?search.password=x', 'search.password'],
      ['/users?search.name=x&mode.name=similar_to', 'mode.name'],
      ['/users?search.name=x&mode.name=posix', 'mode.name'],
      ['/users?search.name=a&search.name=b', 'search.name'],
      ['/users?search=', 'search'],
      [`/users?search=${'a'.repeat(257)}`, 'search'],
      ['/users?search=a%00b', 'search'],
      ['/users?search=a&joint=xor', 'joint'],
      ['/roles?userId=x', 'userId'],
      ['/applications?foo=1', 'foo'],
      ['/organizations?search.customData=x', 'search.customData'],
      ['/hooks?name=x', 'name'],
      ['/resources?includeScope=true', 'includeScope'],
    ];
    for (const [path, named] of refusals) {
      const res = await h.api('GET', path);
      expect(res.status, path).to.equal(400);
      expect(res.body.code, path).to.equal('guard.invalid_input');
      expect(res.body.message, path).to.include(named);
    }
  });

  it("searches a role's scopes as Logto", async () => {
    const { scopes } = await fixtures(h).resourceWithScopes(3);
    const role = await fixtures(h).role({ scopeIds: scopes.map((scope: { id: string }) => scope.id) });
    const found = await ok(
      h.api('GET', `/roles/${role.id}/scopes?${q({ 'search.name': scopes[1].name, 'mode.name': 'exact' })}`),
    );
    expect(ids(found)).to.deep.equal([scopes[1].id]);
    expect(await ok(h.api('GET', `/roles/${role.id}/scopes?${q({ search: '%no-such-scope%' })}`))).to.deep.equal([]);
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/scopes`)))).to.have.members(ids(scopes));
  });

  it('takes includeSsoIdentities on a user (none here) and refuses includePasswordHash', async () => {
    const user = await fixtures(h).user();
    const withSso = await ok(h.api('GET', `/users/${user.id}?includeSsoIdentities=true`));
    expect(withSso.ssoIdentities).to.deep.equal([]);
    expect(await ok(h.api('GET', `/users/${user.id}`))).not.to.have.property('ssoIdentities');
    for (const path of [`/users/${user.id}?includePasswordHash=true`, '/users?includePasswordHash=true']) {
      const refused = await h.api('GET', path);
      expect([refused.status, refused.body.code], path).to.deep.equal([400, 'guard.invalid_input']);
    }
  });

  it('filters roles (excludeUserId, excludeApplicationId) and applications and users (excludeRoleId) as Logto', async () => {
    const [held, other] = [await fixtures(h).role(), await fixtures(h).role()];
    const user = await fixtures(h).user();
    await ok(h.api('POST', `/users/${user.id}/roles`, { roleIds: [held.id] }));
    const roles = ids(await ok(h.api('GET', `/roles?${q({ excludeUserId: user.id, page_size: '100' })}`)));
    expect(roles).to.include(other.id).and.not.include(held.id);
    const users = ids(await ok(h.api('GET', `/users?${q({ excludeRoleId: held.id, page_size: '100' })}`)));
    expect(users).not.to.include(user.id);

    const m2mRole = await fixtures(h).role({ type: 'MachineToMachine' });
    const app = await fixtures(h).m2mApplication();
    await ok(h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2mRole.id] }));
    expect(
      ids(await ok(h.api('GET', `/roles?${q({ excludeApplicationId: app.id, page_size: '100' })}`))),
    ).not.to.include(m2mRole.id);
    expect(ids(await ok(h.api('GET', `/applications?${q({ excludeRoleId: m2mRole.id })}`)))).not.to.include(app.id);
    const searched = await ok(h.api('GET', `/applications?${q({ 'search.name': app.name, 'mode.name': 'exact' })}`));
    expect(ids(searched)).to.deep.equal([app.id]);
  });

  it('lists roles with usersCount, featuredUsers, applicationsCount and featuredApplications', async () => {
    const role = await fixtures(h).role({ name: unique('featured') });
    const users = [];
    for (let index = 0; index < 4; index += 1) users.push(await fixtures(h).user({ name: `Member ${index}` }));
    for (const user of users) await ok(h.api('POST', `/users/${user.id}/roles`, { roleIds: [role.id] }));
    const [listed] = await ok(h.api('GET', `/roles?${q({ 'search.name': role.name, 'mode.name': 'exact' })}`));
    expect(listed).to.include({ id: role.id, usersCount: 4, applicationsCount: 0 });
    expect(listed.featuredUsers).to.have.length(3);
    expect(listed.featuredUsers[0]).to.have.keys('id', 'avatar', 'name');
    expect(listed.featuredApplications).to.deep.equal([]);
  });

  it('searches organizations and their members with q (a substring) and Logto search, and shows featured members', async () => {
    const tag = unique('Acme');
    const org = await fixtures(h).organization({ name: `${tag} Corp` });
    const member = await fixtures(h).member(org.id, { name: 'Jane Member' });
    await fixtures(h).member(org.id, { name: 'John Member' });
    expect(ids(await ok(h.api('GET', `/organizations?${q({ q: tag.toLowerCase() })}`)))).to.deep.equal([org.id]);
    expect(ids(await ok(h.api('GET', `/organizations?${q({ 'search.name': `${tag}%` })}`)))).to.deep.equal([org.id]);
    const members = await ok(h.api('GET', `/organizations/${org.id}/users?${q({ 'search.name': 'jane%' })}`));
    expect(ids(members)).to.deep.equal([member.id]);
    const [featured] = await ok(h.api('GET', `/organizations?${q({ q: tag, showFeatured: 'true' })}`));
    expect(featured.usersCount).to.equal(2);
    expect(featured.featuredUsers.map((user: { id: string }) => user.id)).to.include(member.id);
  });
});
