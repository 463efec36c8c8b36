import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/**
 * Passwords set through the management API obey the sign-in experience's password policy too (Logto
 * checks only those end users choose): the policy says which passwords the service keeps.
 */
describe('management API passwords obey the password policy', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  const problemCodes = (body: { data?: { problems?: Array<{ code: string }> } }) =>
    body.data?.problems?.map((problem) => problem.code);

  it('POST /api/users refuses a common password with 422 password.rejected, creating nobody', async () => {
    const username = unique('carol');
    const res = await h.api('POST', '/users', { username, password: 'Password1' });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.code).to.equal('password.rejected');
    expect(res.body.data.problems).to.deep.equal([
      { code: 'password_rejected.common', message: 'is one of the most common passwords' },
    ]);
    expect(JSON.stringify(res.body)).to.not.include('Password1');
    expect((await h.api('GET', `/users?search=${username}`)).body).to.deep.equal([]);
    expect(h.events).to.deep.equal([]);
  });

  it("POST /api/users refuses a password containing the new user's own identifiers", async () => {
    const username = unique('dave');
    const res = await h.api('POST', '/users', {
      username,
      primaryEmail: 'd.arrow@example.com',
      password: `d.arrow ${username}`,
    });
    expect(res.status).to.equal(422);
    expect(res.body.data.problems[0].interpolation).to.deep.equal({ fields: ['username', 'email'] });
  });

  it('POST /api/users lists every rule a short password breaks, and keeps a good one', async () => {
    const short = await h.api('POST', '/users', { username: unique('erin'), password: '1234' });
    expect(short.status).to.equal(422);
    expect(problemCodes(short.body)).to.deep.equal(['password_rejected.too_short', 'password_rejected.common']);
    const created = await h.api('POST', '/users', { username: unique('erin'), password: 'violet kettle drum' });
    expect(created.status).to.equal(201);
    expect(
      (await h.api('POST', `/users/${created.body.id}/password/verify`, { password: 'violet kettle drum' })).status,
    ).to.equal(204);
  });

  it('PATCH /api/users/:id/password refuses a password breaking the policy, keeping the old one', async () => {
    const user = await fixtures(h).user({ password: 'the first password' });
    const named = await ok(h.api('PATCH', `/users/${user.id}`, { name: 'Zebediah Quill' }));
    h.clear();
    for (const [password, code] of [
      ['zq8!x', 'password_rejected.too_short'],
      ['quill feather pen', 'password_rejected.restricted.user_info'],
    ]) {
      const res = await h.api('PATCH', `/users/${named.id}/password`, { password });
      expect(res.status, password).to.equal(422);
      expect([res.body.code, problemCodes(res.body)], password).to.deep.equal(['password.rejected', [code]]);
    }
    expect(h.events, 'a refused password publishes nothing').to.deep.equal([]);
    expect(
      (await h.api('POST', `/users/${user.id}/password/verify`, { password: 'the first password' })).status,
    ).to.equal(204);
  });

  it('follows the policy as it is changed', async () => {
    const user = await fixtures(h).user({ password: 'the first password' });
    await ok(
      h.api('PATCH', '/sign-in-exp', {
        passwordPolicy: {
          length: { min: 4 },
          characterTypes: { min: 2 },
          rejects: { commonPasswords: false, userInfo: false, words: ['acme'] },
        },
      }),
    );
    const refused = await h.api('PATCH', `/users/${user.id}/password`, { password: 'acme' });
    expect(problemCodes(refused.body)).to.deep.equal([
      'password_rejected.character_types',
      'password_rejected.restricted.words',
    ]);
    expect((await h.api('PATCH', `/users/${user.id}/password`, { password: 'ab1!' })).status).to.equal(200);
    expect((await h.api('POST', `/users/${user.id}/password/verify`, { password: 'ab1!' })).status).to.equal(204);

    await ok(h.api('PATCH', '/sign-in-exp', { passwordPolicy: { length: { min: 16 } } }));
    const tooShort = await h.api('POST', '/users', { username: unique('fred'), password: 'fifteen chars!!' });
    expect(problemCodes(tooShort.body)).to.deep.equal(['password_rejected.too_short']);
  });

  it('still refuses a password longer than 256 characters, whatever the policy, with 400', async () => {
    const res = await h.api('POST', '/users', { username: unique('gina'), password: 'x'.repeat(257) });
    expect([res.status, res.body.code]).to.deep.equal([400, 'guard.invalid_input']);
  });
});
