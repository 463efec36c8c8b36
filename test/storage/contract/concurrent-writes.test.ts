import { expect } from 'chai';
import { createUser } from '../../support/fixtures.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

/**
 * Writes that used to read, change and write back (or check, then insert) lose under concurrency; they are
 * atomic in the store now. Member lists are cut in the store.
 */
forEachBackend('concurrent writes and member pages', (backend) => {
  let running: RunningService;
  before(async () => {
    running = await startService({ stores: { documents: await backend.open() } });
  });
  after(() => running?.close());

  async function json<T>(response: Response, status: number): Promise<T> {
    expect(response.status, await response.clone().text()).to.equal(status);
    return (await response.json()) as T;
  }

  it('keeps every key of concurrent customData and profile merges', async () => {
    const user = await createUser(running);
    const keys = Array.from({ length: 12 }, (_, i) => `key${i}`);
    await Promise.all(
      keys.flatMap((key) => [
        running.request(`/api/users/${user.id}/custom-data`, { method: 'PATCH', json: { customData: { [key]: key } } }),
        running.request(`/api/users/${user.id}/profile`, { method: 'PATCH', json: { profile: { nickname: key } } }),
      ]),
    );
    const customData = await json<Record<string, string>>(
      await running.request(`/api/users/${user.id}/custom-data`),
      200,
    );
    expect(Object.keys(customData).sort()).to.deep.equal([...keys].sort());
    const merged = await json<{ customData: Record<string, unknown> }>(
      await running.request(`/api/users/${user.id}/custom-data`, {
        method: 'PATCH',
        json: { customData: { 'dotted.key': 1, '': 2 } },
      }),
      200,
    );
    expect(merged).to.deep.include({ key0: 'key0', 'dotted.key': 1, '': 2 });
  });

  it('leaves one pending invitation per invitee however many are created at once', async () => {
    const organization = await json<{ id: string }>(
      await running.request('/api/organizations', { method: 'POST', json: { name: 'invitations race' } }),
      201,
    );
    const body = { organizationId: organization.id, invitee: 'raced@example.com', expiresAt: Date.now() + 3_600_000 };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => running.request('/api/organization-invitations', { method: 'POST', json: body })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409]);
    const listed = await json<unknown[]>(
      await running.request(`/api/organization-invitations?organizationId=${organization.id}`),
      200,
    );
    expect(listed).to.have.length(1);
  });

  it('pages an organization’s members in the order they joined, with the total', async () => {
    const organization = await json<{ id: string }>(
      await running.request('/api/organizations', { method: 'POST', json: { name: 'big organization' } }),
      201,
    );
    const members: string[] = [];
    for (let i = 0; i < 13; i += 1) {
      const user = await createUser(running);
      members.push(user.id);
      await json(
        await running.request(`/api/organizations/${organization.id}/users`, {
          method: 'POST',
          json: { userIds: [user.id] },
        }),
        201,
      );
    }
    const second = await running.request(`/api/organizations/${organization.id}/users?page=2&page_size=5`);
    const page = await json<Array<{ id: string }>>(second, 200);
    expect(second.headers.get('total-number')).to.equal('13');
    expect(page.map((user) => user.id)).to.deep.equal(members.slice(5, 10));
  });
});
