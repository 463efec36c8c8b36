import { expect } from 'chai';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from './support.ts';

const PASSWORD = 'Concurrent-Pass-31';

/**
 * Requests on one interaction at once each load its experience, change it and save it: without a guard the last
 * save would drop what the others added. Each change either stands or is refused whole with 409.
 */
describe('Experience API: concurrent requests on one interaction', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness({ MESSAGE_RATE_LIMIT_COUNT: '100' });
  });
  after(() => h.close());

  it('keeps every verification a 2xx answer named, and refuses the others with 409 session.concurrent_update', async () => {
    const email = `${uniqueName('race')}@example.com`;
    const created = await h.running.request('/api/users', {
      method: 'POST', json: { username: uniqueName('race'), primaryEmail: email, password: PASSWORD },
    });
    expect(created.status).to.equal(201);
    const username = (await json(created)).username as string;
    let refused = 0;
    for (let round = 0; round < 6; round += 1) {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      // A password verification and a code verification are records of different types: both must survive together.
      const answers = await Promise.all([
        client.api('POST', '/verification/password', { identifier: { type: 'username', value: username }, password: PASSWORD }),
        client.api('POST', '/verification/verification-code', { identifier: { type: 'email', value: email }, interactionEvent: 'SignIn' }),
        client.api('POST', '/verification/verification-code', { identifier: { type: 'email', value: email }, interactionEvent: 'SignIn' }),
      ]);
      const kept = new Set<string>();
      for (const answer of answers) {
        if (answer.status === 200) {
          kept.add(answer.body.verificationId);
          continue;
        }
        expect(answer.status, JSON.stringify(answer.body)).to.equal(409);
        expect(answer.body.code).to.equal('session.concurrent_update');
        refused += 1;
      }
      const state = await client.ok('GET', '/interaction');
      const stored = new Set<string>(state.verificationRecords.map((record: { id: string }) => record.id));
      // A later code verification replaces an earlier one that succeeded: what is stored is a subset of what was answered.
      for (const id of stored) expect(kept.has(id), `stored ${id} was answered`).to.equal(true);
      const password = answers[0]!;
      if (password.status === 200) expect(stored.has(password.body.verificationId), 'the password verification stands').to.equal(true);
      const codes = answers.slice(1).filter((answer) => answer.status === 200);
      if (codes.length > 0) {
        expect(state.verificationRecords.filter((record: { type: string }) => record.type !== 'Password'), 'one code verification').to.have.length(1);
      }
      expect(stored.size, 'nothing answered 2xx was lost but what a later code verification replaced').to.equal(
        (password.status === 200 ? 1 : 0) + (codes.length > 0 ? 1 : 0),
      );
    }
    expect(refused, 'the requests overlapped at least once').to.be.greaterThan(0);
  });
});
