import { expect } from 'chai';
import { pino } from 'pino';
import { createIdentityService } from '../../app/index.ts';
import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';
import { startService, type RunningService } from '../support/service.ts';
import { setupToken } from '../support/setup-link.ts';

const PASSWORD = 'Copper-Kettle-93';

async function setup(running: RunningService, body: Record<string, unknown>) {
  const res = await fetch(`${running.baseUrl}/api/console/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function consoleAdminIds(running: RunningService): Promise<string[]> {
  const res = await running.request('/api/roles/console-admin/users?page_size=100');
  return ((await res.json()) as Array<{ id: string }>).map((user) => user.id);
}

describe('console admins: the one-time setup link', () => {
  let running: RunningService;
  const printed: string[] = [];
  before(async () => {
    running = await startService({ print: (text) => printed.push(text) });
  });
  after(() => running.close());

  it('prints a link on the first start without an admin, which creates the first admin once, then is refused', async () => {
    const token = setupToken(printed, running.baseUrl);
    expect(await (await fetch(`${running.baseUrl}/api/console/setup`)).json()).to.deep.equal({ adminExists: false });

    const wrong = await setup(running, { token: `${token}x`, username: 'first_admin', password: PASSWORD });
    expect(wrong.status).to.equal(403);
    expect(wrong.body.code).to.equal('console.setup_link_invalid');

    // A password the policy refuses leaves the link usable.
    const weak = await setup(running, { token, username: 'first_admin', password: 'password' });
    expect(weak.status).to.equal(422);
    expect(weak.body.code).to.equal('password.rejected');
    const badName = await setup(running, { token, username: '1 bad name', password: PASSWORD });
    expect(badName.status).to.equal(400);
    expect(badName.body.code).to.equal('guard.invalid_input');

    // 100 requests at once with the same link: exactly one admin.
    const attempts = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        setup(running, {
          token,
          username: `first_admin_${index}`,
          password: PASSWORD,
        }),
      ),
    );
    const created = attempts.filter((attempt) => attempt.status === 201);
    expect(
      created,
      JSON.stringify(attempts.filter((attempt) => attempt.status !== 201).map((attempt) => attempt.body.code)),
    ).to.have.length(1);
    for (const refused of attempts.filter((attempt) => attempt.status !== 201)) {
      expect(refused.body.code).to.be.oneOf(['console.setup_link_invalid', 'console.setup_completed']);
    }
    const admin = created[0]!.body;
    expect(admin.username).to.match(/^first_admin_\d+$/);
    expect(admin).not.to.have.property('password');
    expect(await consoleAdminIds(running)).to.deep.equal([admin.id]);

    const again = await setup(running, { token, username: 'second_admin', password: PASSWORD });
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('console.setup_completed');
    expect(await (await fetch(`${running.baseUrl}/api/console/setup`)).json()).to.deep.equal({ adminExists: true });

    // The chosen password is the admin's (the browser test signs in with it).
    await running.service.core.users.verifyPassword(admin.id, PASSWORD);
  });

  it('prints no link when an admin exists', async () => {
    const before = printed.length;
    const documents = createMemoryDocumentStore();
    const lines: string[] = [];
    const quiet = { logger: pino({ level: 'silent' }), print: (text: string) => lines.push(text) };
    const env = {
      STORAGE: 'memory',
      BASE_URL: 'http://127.0.0.1:1',
      ADMIN_CLIENT_ID: 'setup-admin',
      ADMIN_CLIENT_SECRET: 'setup-admin-secret-0123',
    };
    const first = await createIdentityService({ env, stores: { documents }, ...quiet });
    await first.close();
    expect(lines.join('')).to.include('/console/setup#token=');
    lines.length = 0;
    const second = await createIdentityService({
      env: { ...env, ADMIN_USERNAME: 'ops', ADMIN_PASSWORD: PASSWORD },
      stores: { documents },
      ...quiet,
    });
    await second.close();
    const third = await createIdentityService({ env, stores: { documents }, ...quiet });
    await third.close();
    expect(lines.join('')).not.to.include('/console/setup');
    expect(printed.length).to.equal(before);
  });
});

describe('console admins: ADMIN_USERNAME and ADMIN_PASSWORD', () => {
  it('creates the admin, and on a later start gives it the configured password again, unsuspended and in the role', async () => {
    const documents = createMemoryDocumentStore();
    const quiet = { logger: pino({ level: 'silent' }), print: () => {} };
    const env = (password: string) => ({
      STORAGE: 'memory',
      BASE_URL: 'http://127.0.0.1:1',
      ADMIN_CLIENT_ID: 'env-admin',
      ADMIN_CLIENT_SECRET: 'env-admin-secret-0123',
      ADMIN_USERNAME: 'ops',
      ADMIN_PASSWORD: password,
    });
    const first = await createIdentityService({ env: env(PASSWORD), stores: { documents }, ...quiet });
    const users = first.records.users;
    const ops = (await users.findWithSecrets({ username: 'ops' }))!.user;
    expect(await first.records.roles.roleIdsOfUser(ops.id)).to.include('console-admin');
    await first.core.users.setSuspended(ops.id, true);
    await first.records.roles.removeFromUser(ops.id, 'console-admin');
    await first.close();

    const second = await createIdentityService({ env: env('Another-Kettle-84'), stores: { documents }, ...quiet });
    try {
      const again = (await second.records.users.findWithSecrets({ username: 'ops' }))!.user;
      expect(again.id).to.equal(ops.id);
      expect(again.isSuspended).to.equal(false);
      expect(await second.records.roles.roleIdsOfUser(ops.id)).to.include('console-admin');
      await second.core.users.verifyPassword(ops.id, 'Another-Kettle-84');
      let refused: unknown;
      await second.core.users.verifyPassword(ops.id, PASSWORD).catch((error: unknown) => (refused = error));
      expect(refused, 'the old password no longer works').to.be.instanceOf(Error);
    } finally {
      await second.close();
    }
  });

  it('refuses to start with only one of the two, or with a password the policy refuses', async () => {
    const quiet = { logger: pino({ level: 'silent' }), print: () => {} };
    const base = { BASE_URL: 'http://127.0.0.1:1' };
    let error: unknown;
    await createIdentityService({ env: { ...base, ADMIN_USERNAME: 'ops' }, ...quiet }).catch(
      (caught: unknown) => (error = caught),
    );
    expect(String(error)).to.include('ADMIN_USERNAME and ADMIN_PASSWORD must be set together');
    error = undefined;
    await createIdentityService({
      env: { ...base, ADMIN_USERNAME: 'ops', ADMIN_PASSWORD: 'password' },
      ...quiet,
    }).catch((caught: unknown) => (error = caught));
    expect(error).to.have.property('code', 'password.rejected');
  });
});
