/**
 * The durable default, as a user would check it: the real server on a fresh data directory, 300 writes from 8
 * concurrent clients (users, roles, organization memberships), SIGKILL in the middle, a restart on the same directory.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { tempDataDir } from '../support/sqlite.ts';
import { eventually } from '../support/wait.ts';
import { Receiver } from '../support/webhooks/receiver.ts';
import { verifyDelivery } from '../support/webhooks/hooks.ts';
import { ServerProcess } from '../support/storage/server.ts';

const WRITES = 300;
const CLIENTS = 8;
/** Users stored before the stream, for the membership writes to add. */
const SEEDED = Math.ceil(WRITES / 3);

type Kind = 'user' | 'role' | 'member';
interface Write {
  n: number;
  kind: Kind;
  /** The username, role name, or the seeded user added. */
  key: string;
  outcome?: 'answered' | 'refused' | 'unanswered';
  status?: number;
}

describe('SQLite store: SIGKILL in the middle of 300 concurrent writes', function () {
  this.timeout(180_000);
  let dataDir: string;
  let server: ServerProcess;
  let receiver: Receiver;

  before(async () => {
    dataDir = tempDataDir();
    receiver = await Receiver.start();
    server = await ServerProcess.on(dataDir, { WEBHOOK_RETRY_DELAYS_MS: '100,200,400,800' });
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function created(response: Response): Promise<{ id: string }> {
    expect(response.status, await response.clone().text()).to.equal(201);
    return response.json() as Promise<{ id: string }>;
  }

  /** Every item of a paged management list. */
  async function all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; page < 100; page += 1) {
      const response = await server.request(`${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=100`);
      expect(response.status).to.equal(200);
      const batch = (await response.json()) as T[];
      items.push(...batch);
      if (batch.length < 100) return items;
    }
    throw new Error(`${path} has more pages than expected`);
  }

  it("keeps every write answered 2xx, none half, and delivers each committed write's event once (same webhook-id) across the restart", async () => {
    await server.start();
    const hook = (await created(
      await server.request('/api/hooks', {
        method: 'POST',
        json: {
          name: 'crash',
          events: ['User.Created', 'Role.Created', 'Organization.Membership.Updated'],
          config: { url: receiver.url('/events') },
        },
      }),
    )) as { id: string; signingKey?: string };
    const signingKey = (hook as { signingKey: string }).signingKey;
    const organization = await created(
      await server.request('/api/organizations', { method: 'POST', json: { name: 'crash-org' } }),
    );
    const seeded: string[] = [];
    for (let i = 0; i < SEEDED; i += 1) {
      seeded.push(
        (await created(await server.request('/api/users', { method: 'POST', json: { username: `seed_${i}` } }))).id,
      );
    }

    const writes: Write[] = Array.from({ length: WRITES }, (_, n) => {
      const kind: Kind = (['user', 'role', 'member'] as const)[n % 3]!;
      const key =
        kind === 'user' ? `crash_user_${n}` : kind === 'role' ? `crash-role-${n}` : seeded[Math.floor(n / 3)]!;
      return { n, kind, key };
    });
    const request = (write: Write) =>
      write.kind === 'user'
        ? server.request('/api/users', { method: 'POST', json: { username: write.key } })
        : write.kind === 'role'
          ? server.request('/api/roles', { method: 'POST', json: { name: write.key, description: 'crash' } })
          : server.request(`/api/organizations/${organization.id}/users`, {
              method: 'POST',
              json: { userIds: [write.key] },
            });
    let next = 0;
    let killed = false;
    const answeredCount = () => writes.filter((write) => write.outcome === 'answered').length;
    const client = async () => {
      while (next < WRITES) {
        const write = writes[next++]!;
        try {
          const response = await request(write);
          write.status = response.status;
          write.outcome = response.status < 300 ? 'answered' : 'refused';
        } catch {
          write.outcome = 'unanswered';
        }
        if (!killed && answeredCount() >= WRITES / 2) {
          killed = true;
          await server.kill();
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    expect(killed).to.equal(true);
    const answered = writes.filter((write) => write.outcome === 'answered');
    const refused = writes.filter((write) => write.outcome === 'refused');
    const unanswered = writes.filter((write) => write.outcome === 'unanswered');
    expect(answered.length).to.be.at.least(WRITES / 2);
    expect(unanswered.length, 'writes were cut off by the kill').to.be.greaterThan(0);
    // A server that is up answers every one of these 2xx: only the kill cut any short.
    expect(refused.map((write) => write.status)).to.deep.equal([]);

    await server.start();
    const users = new Map(
      (await all<{ id: string; username: string }>('/api/users')).map((user) => [user.username, user.id]),
    );
    const roles = new Map((await all<{ id: string; name: string }>('/api/roles')).map((role) => [role.name, role.id]));
    const members = new Set(
      (await all<{ id: string }>(`/api/organizations/${organization.id}/users`)).map((user) => user.id),
    );
    const stored = (write: Write) =>
      write.kind === 'user'
        ? users.has(write.key)
        : write.kind === 'role'
          ? roles.has(write.key)
          : members.has(write.key);
    for (const write of answered)
      expect(stored(write), `${write.kind} ${write.key}, answered 2xx before the kill`).to.equal(true);
    for (const seed of seeded) expect([...users.values()]).to.include(seed);
    const committed = writes.filter(stored);

    // Each committed write's event, by what it is about; each delivery's webhook-id.
    const eventKey = (payload: Record<string, any>): string => {
      if (payload.event === 'User.Created') return `user:${payload.data.username}`;
      if (payload.event === 'Role.Created') return `role:${payload.data.name}`;
      return `member:${(payload.addedUserIds as string[]).join(',')}`;
    };
    const writeKey = (write: Write) => `${write.kind}:${write.key}`;
    const expected = new Set([...committed.map(writeKey), ...seeded.map((_, i) => `user:seed_${i}`)]);
    const deliveries = () =>
      receiver.requests('/events').map((received) => ({
        id: String(received.headers['webhook-id']),
        key: eventKey(verifyDelivery(received, signingKey)),
      }));
    await eventually(() => new Set(deliveries().map((delivery) => delivery.key)).size >= expected.size, {
      timeoutMs: 60_000,
      what: `the events of the ${expected.size} committed writes delivered`,
    });
    const idsByKey = new Map<string, Set<string>>();
    for (const delivery of deliveries()) {
      const ids = idsByKey.get(delivery.key) ?? new Set<string>();
      ids.add(delivery.id);
      idsByKey.set(delivery.key, ids);
    }
    expect(new Set(idsByKey.keys()), 'an event for every committed write, and for nothing else').to.deep.equal(
      expected,
    );
    for (const [key, ids] of idsByKey) expect([...ids], `${key}: one webhook-id`).to.have.length(1);
    // The only repeat a SIGKILL may cause: a delivery in flight when it struck, sent again with the same webhook-id.
    const repeats = deliveries().length - idsByKey.size;
    process.stdout.write(
      `      (${answered.length} answered, ${unanswered.length} cut off, ${committed.length - answered.length} of those committed; ` +
        `${repeats} deliveries in flight at the kill sent again with their webhook-id)\n`,
    );
    expect(repeats).to.be.at.most(50);
  });
});
