import { expect } from 'chai';
import { DomainError } from '../../lib/errors.ts';
import { startService, type RunningService } from '../support/service.ts';

/** The interface the Experience API and the sign-in pages use: `core.signInExperience`. */
describe('sign-in experience library', () => {
  let running: RunningService;
  beforeEach(async () => {
    running = await startService();
  });
  afterEach(() => running.close());

  const library = () => running.service.core.signInExperience;

  async function refusal(promise: Promise<unknown>): Promise<DomainError> {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }

  it('update validates what it is given, as the route does', async () => {
    expect((await refusal(library().update('SignIn'))).code).to.equal('guard.invalid_input');
    expect((await refusal(library().update({ adaptiveMfa: {} }))).code).to.equal(
      'sign_in_experiences.unsupported_setting',
    );
    expect(
      (await refusal(library().update({ signUp: { identifiers: ['email'], password: true, verify: false } }))).code,
    ).to.equal('sign_in_experiences.passwordless_requires_verify');
    const updated = await library().update({ signInMode: 'SignIn' });
    expect(updated.signInMode).to.equal('SignIn');
    expect(await library().get()).to.deep.equal(updated);
  });

  it('checkPassword follows the stored policy and the identifiers of the user when given', async () => {
    const user = { username: 'marigold', primaryEmail: 'm.gold@example.com', primaryPhone: null, name: 'Mari Gold' };
    expect(await library().checkPassword('marigold garden', user)).to.have.length(1);
    expect(await library().checkPassword('marigold garden')).to.deep.equal([]);
    await library().update({ passwordPolicy: { length: { min: 20 }, rejects: { userInfo: false } } });
    expect((await library().checkPassword('marigold garden', user)).map((problem) => problem.code)).to.deep.equal([
      'password_rejected.too_short',
    ]);
  });

  it("assertPassword throws Logto's password.rejected, a rule broken (422), with every problem", async () => {
    await library().assertPassword('violet kettle drum');
    const error = await refusal(library().assertPassword('qwerty', { username: 'qwerty' }));
    expect([error.code, error.kind]).to.deep.equal(['password.rejected', 'rule']);
    expect((error.data as { problems: Array<{ code: string }> }).problems.map((problem) => problem.code)).to.deep.equal(
      ['password_rejected.too_short', 'password_rejected.common', 'password_rejected.restricted.user_info'],
    );
    expect(error.message).to.not.include('qwerty');
  });
});
