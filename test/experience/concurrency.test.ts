import { expect } from 'chai';
import { createMemoryKeyValueStore } from '../../adapters/memory/kv.ts';
import { DomainError } from '../../lib/errors.ts';
import { createExperienceStore } from '../../lib/experience/store.ts';
import type { ExperienceRecord } from '../../lib/experience/types.ts';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

const PASSWORD = 'Concurrent-Pass-31';

/**
 * Requests on one interaction at once each load its experience, change it and save it: without a guard the last
 * save would drop what the others added. In one process they run one after the other; across processes sharing the
 * key-value store, a save over a record another process changed meanwhile is refused whole with 409.
 */
describe('Experience API: concurrent requests on one interaction', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness({ MESSAGE_RATE_LIMIT_COUNT: '100' });
  });
  after(() => h.close());

  it('applies concurrent requests one after the other: every verification a 2xx answer named stands, unless a later one replaced it', async () => {
    const email = `${uniqueName('race')}@example.com`;
    const created = await h.running.request('/api/users', {
      method: 'POST',
      json: { username: uniqueName('race'), primaryEmail: email, password: PASSWORD },
    });
    expect(created.status).to.equal(201);
    const username = (await json(created)).username as string;
    for (let round = 0; round < 6; round += 1) {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      // A password verification and code verifications are records of different types: both types must survive.
      const answers = await Promise.all([
        client.api('POST', '/verification/password', {
          identifier: { type: 'username', value: username },
          password: PASSWORD,
        }),
        client.api('POST', '/verification/verification-code', {
          identifier: { type: 'email', value: email },
          interactionEvent: 'SignIn',
        }),
        client.api('POST', '/verification/verification-code', {
          identifier: { type: 'email', value: email },
          interactionEvent: 'SignIn',
        }),
      ]);
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const state = await client.ok('GET', '/interaction');
      const stored = state.verificationRecords as Array<{ id: string; type: string }>;
      expect(stored.map((record) => record.id)).to.include(answers[0]!.body.verificationId);
      // One code verification per experience: the one that ran last replaced the other.
      const codes = stored.filter((record) => record.type !== 'Password').map((record) => record.id);
      expect(codes).to.have.length(1);
      expect([answers[1]!.body.verificationId, answers[2]!.body.verificationId]).to.include(codes[0]);
    }
  });
});

describe('experience records shared by several processes', () => {
  const record = (event: ExperienceRecord['interactionEvent']): ExperienceRecord => ({
    interactionEvent: event,
    verifications: [],
    profile: {},
  });

  it('refuses a save over a record another process saved since it was loaded, with 409 session.concurrent_update, and keeps the other', async () => {
    const kv = createMemoryKeyValueStore();
    const [one, other] = [createExperienceStore(kv), createExperienceStore(kv)];
    await one.save('uid-1', record('SignIn'), 600);
    const [mine, theirs] = [await one.load('uid-1'), await other.load('uid-1')];
    mine!.profile = { username: 'first' };
    theirs!.profile = { username: 'second' };
    await one.save('uid-1', mine!, 600);
    const refused = await other.save('uid-1', theirs!, 600).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).code).to.equal('session.concurrent_update');
    expect((await other.load('uid-1'))!.profile).to.deep.equal({ username: 'first' });
    // Loaded again, it saves; and saving the same object twice compares with what it saved the first time.
    const reloaded = (await other.load('uid-1'))!;
    reloaded.profile = { username: 'third' };
    await other.save('uid-1', reloaded, 600);
    reloaded.profile = { username: 'fourth' };
    await other.save('uid-1', reloaded, 600);
    expect((await one.load('uid-1'))!.profile).to.deep.equal({ username: 'fourth' });
  });
});
