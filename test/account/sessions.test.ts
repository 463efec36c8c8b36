import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { DEFAULT_ACCOUNT_CENTER } from '../../lib/account/center.ts';
import { asUser, passwordRecord } from '../support/account.ts';
import { Browser } from '../support/browser.ts';
import { PASSWORD, REDIRECT, signIn, type App } from '../support/settings.ts';

const SESSIONS = 'openid urn:logto:scope:sessions';

interface Session {
  payload: { uid: string; authorizations?: Record<string, { grantId?: string }> } & Record<string, unknown>;
  clientId: string | null;
  accountId: string;
  expiresAt: number;
  isCurrent: boolean;
  lastSubmission: unknown;
}

describe('Account API: the user lists and ends their own sessions', () => {
  let running: RunningService;
  let notes: App;
  let tasks: App;
  let partner: App;

  before(async () => {
    running = await startService();
    const spa = (isThirdParty: boolean) =>
      createApplication(running, { type: 'SPA', isThirdParty, oidcClientMetadata: { redirectUris: [REDIRECT] } });
    [notes, tasks, partner] = await Promise.all([spa(false), spa(false), spa(true)]);
  });
  afterEach(async () => {
    const reset = await running.request('/api/account-center', {
      method: 'PATCH',
      json: { fields: DEFAULT_ACCOUNT_CENTER.fields },
    });
    expect(reset.status).to.equal(200);
  });
  after(() => running.close());

  async function member() {
    const username = `member_${randomBytes(4).toString('hex')}`;
    const user = await createUser(running, [], { username }, PASSWORD);
    /** Signs in in `browser` (a new one: a new session) through `app`; the Account API as that token. */
    const through = async (app: App, scope = SESSIONS, browser = new Browser()) => {
      const params: Record<string, string> = scope.includes('offline_access')
        ? { scope, prompt: 'consent' }
        : { scope };
      const token = (await signIn(running, app, username, params, browser)).access_token;
      return asUser(running, token);
    };
    return { user, through };
  }

  async function sessionsOf(me: ReturnType<typeof asUser>): Promise<Session[]> {
    const answer = await me('/api/my-account/sessions', { verification: await passwordRecord(me, PASSWORD) });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body!.sessions as Session[];
  }

  const end = async (me: ReturnType<typeof asUser>, uid: string, query = '') =>
    me(`/api/my-account/sessions/${uid}${query}`, {
      method: 'DELETE',
      verification: await passwordRecord(me, PASSWORD),
    });

  it("lists the user's live sessions, no one else's, the caller's own marked current, nothing secret", async () => {
    const { user, through } = await member();
    const first = await through(notes);
    const second = await through(tasks);
    await (await member()).through(notes);

    const seenByFirst = await sessionsOf(first);
    expect(seenByFirst).to.have.length(2);
    for (const session of seenByFirst) {
      expect(session.accountId).to.equal(user.id);
      expect(session.lastSubmission).to.equal(null);
      expect(session.expiresAt).to.be.greaterThan(Date.now());
      expect(Object.keys(session.payload).sort()).to.deep.equal(
        ['accountId', 'authorizations', 'exp', 'iat', 'jti', 'kind', 'loginTs', 'uid'].sort(),
      );
    }
    const current = seenByFirst.filter((session) => session.isCurrent);
    expect(current).to.have.length(1);
    expect(current[0]!.clientId).to.equal(notes.id);
    expect(Object.keys(current[0]!.payload.authorizations!)).to.deep.equal([notes.id]);

    const seenBySecond = await sessionsOf(second);
    const currentOfSecond = seenBySecond.filter((session) => session.isCurrent);
    expect(currentOfSecond).to.have.length(1);
    expect(currentOfSecond[0]!.clientId).to.equal(tasks.id);
    expect(currentOfSecond[0]!.payload.uid).not.to.equal(current[0]!.payload.uid);
  });

  it('needs the identity gate, the sessions scope and the account center field', async () => {
    const { through } = await member();
    const me = await through(notes);
    const [session] = await sessionsOf(me);
    const uid = session!.payload.uid;

    for (const [method, path] of [
      ['GET', '/api/my-account/sessions'],
      ['DELETE', `/api/my-account/sessions/${uid}`],
    ] as const) {
      const ungated = await me(path, { method });
      expect(ungated.status, method).to.equal(401);
      expect(ungated.body!.code).to.equal('verification_record.permission_denied');
    }

    const unscoped = await through(notes, 'openid profile');
    const verification = await passwordRecord(unscoped, PASSWORD);
    for (const [method, path] of [
      ['GET', '/api/my-account/sessions'],
      ['DELETE', `/api/my-account/sessions/${uid}`],
    ] as const) {
      const answer = await unscoped(path, { method, verification });
      expect(answer.status, method).to.equal(401);
      expect(answer.body!.code).to.equal('auth.unauthorized');
    }

    await running.request('/api/account-center', { method: 'PATCH', json: { fields: { session: 'ReadOnly' } } });
    expect(await sessionsOf(me)).to.have.length(2);
    const readOnly = await end(me, uid);
    expect(readOnly.status).to.equal(403);
    expect(readOnly.body!.code).to.equal('account_center.field_not_editable');

    await running.request('/api/account-center', { method: 'PATCH', json: { fields: { name: 'Edit' } } });
    const off = await me('/api/my-account/sessions', { verification: await passwordRecord(me, PASSWORD) });
    expect(off.status).to.equal(403);
    expect(off.body!.code).to.equal('account_center.field_not_enabled');
  });

  it("refuses a session that is not the user's, an unknown one, and a third-party application's token", async () => {
    const { through } = await member();
    const me = await through(notes);
    const [mine] = await sessionsOf(me);
    const other = await (await member()).through(notes);
    const [theirs] = await sessionsOf(other);

    const foreign = await end(me, theirs!.payload.uid);
    expect(foreign.status).to.equal(404);
    expect(foreign.body!.code).to.equal('oidc.invalid_session_account_id');
    expect(await sessionsOf(other)).to.have.length(1);

    const unknown = await end(me, 'no-such-session');
    expect(unknown.status).to.equal(404);
    expect(unknown.body!.code).to.equal('oidc.session_not_found');

    const badTarget = await end(me, mine!.payload.uid, '?revokeGrantsTarget=everything');
    expect(badTarget.status).to.equal(400);
    expect(badTarget.body!.code).to.equal('guard.invalid_input');

    const thirdParty = await through(partner);
    expect(await sessionsOf(thirdParty)).to.have.length(2);
    const refused = await end(thirdParty, mine!.payload.uid);
    expect(refused.status).to.equal(403);
    expect(refused.body!.code).to.equal('auth.third_party_application_forbidden');
    expect(await sessionsOf(me)).to.have.length(2);
  });

  it('signs a session out, its grants kept, or also ended for every application or first-party ones only', async () => {
    const { through } = await member();
    const me = await through(notes);
    const stillSignedIn = async (app: ReturnType<typeof asUser>) => (await app('/api/my-account')).status === 200;
    // Offline access: the tokens outlive the browser session, as long as their grant stands.
    const OFFLINE = `${SESSIONS} offline_access`;

    // Sign-out only: the session goes, the application's token keeps working.
    const kept = await through(tasks, OFFLINE);
    const keptUid = (await sessionsOf(kept)).find((session) => session.isCurrent)!.payload.uid;
    expect((await end(me, keptUid)).status).to.equal(204);
    expect((await sessionsOf(me)).map((session) => session.payload.uid)).not.to.include(keptUid);
    expect(await stillSignedIn(kept)).to.equal(true);

    // One browser session that signed in to a first-party and a third-party application.
    const browser = new Browser();
    const firstParty = await through(tasks, OFFLINE, browser);
    const thirdParty = await through(partner, OFFLINE, browser);
    const shared = (await sessionsOf(firstParty)).find((session) => session.isCurrent)!;
    expect(Object.keys(shared.payload.authorizations!).sort()).to.deep.equal([tasks.id, partner.id].sort());

    expect((await end(me, shared.payload.uid, '?revokeGrantsTarget=firstParty')).status).to.equal(204);
    expect(await stillSignedIn(firstParty)).to.equal(false);
    expect(await stillSignedIn(thirdParty)).to.equal(true);

    const again = new Browser();
    const notesToken = await through(notes, OFFLINE, again);
    const partnerToken = await through(partner, OFFLINE, again);
    const both = (await sessionsOf(notesToken)).find((session) => session.isCurrent)!;
    expect((await end(me, both.payload.uid, '?revokeGrantsTarget=all')).status).to.equal(204);
    expect(await stillSignedIn(notesToken)).to.equal(false);
    expect(await stillSignedIn(partnerToken)).to.equal(false);
    expect(await stillSignedIn(me)).to.equal(true);
    expect((await sessionsOf(me)).map((session) => session.isCurrent)).to.deep.equal([true]);
  });
});
