import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { ADMIN, clientCredentialsToken } from '../support/service.ts';
import { freePort, serviceFreeEnv, startUntilReady } from '../support/processes.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { PrivateRedis, redisServerInstalled } from '../support/redis-server.ts';
import { uniqueQueueName } from '../support/webhooks/hooks.ts';

const ROOT = new URL('../..', import.meta.url);
const WRITERS = 8;
const USERS = 3;
/** Changes answered before the kill, and after the restart. */
const BEFORE_KILL = 120;
const AFTER_RESTART = 60;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Listed = { event: string; sequence: number; version?: number; data: { id: string; name?: string | null } };

/**
 * docs/webhooks.md, "Events API": the real server on a temporary DATA_DIR (SQLite), alone or with its queue and
 * key-value store on Redis (a private redis-server, so that no other run shares its lease), 8 concurrent writers
 * changing three users and a reader following cursors all along; the server is SIGKILLed mid-stream and started again
 * on the same directory, the reader keeping its cursor. The reader's union is every retained event, each once, every
 * change answered 200 is in it, and each user's versions are 1, 2, 3… in sequence order.
 */
for (const variant of ['embedded', 'redis'] as const)
  describe(`events API across a SIGKILL and a restart (SQLite, ${variant})`, function () {
    this.timeout(120_000);
    const children: ChildProcess[] = [];
    let dataDir: string;
    let env: NodeJS.ProcessEnv;
    let baseUrl: string;
    let redis: PrivateRedis | undefined;

    before(async function () {
      if (variant === 'redis') {
        // Reported pending, never passed, where the redis-server binary is missing.
        if (!redisServerInstalled()) this.skip();
        redis = await PrivateRedis.start();
      }
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      dataDir = tempDataDir();
      env = {
        ...serviceFreeEnv(),
        PORT: String(port),
        BASE_URL: baseUrl,
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        ADMIN_CLIENT_ID: ADMIN.id,
        ADMIN_CLIENT_SECRET: ADMIN.secret,
        AUTH_FAILURE_RATE_LIMIT: '0',
        ...(redis ? { REDIS_URL: redis.url, WEBHOOK_QUEUE_NAME: uniqueQueueName('events-restart') } : {}),
      };
    });

    after(async () => {
      const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
      const exits = running.map((child) => once(child, 'exit'));
      for (const child of running) process.kill(child.pid!, 'SIGKILL');
      await Promise.all(exits);
      await redis?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const start = () => startUntilReady('bin/server.ts', { cwd: ROOT, env, spawned: (child) => children.push(child) });
    const adminToken = () => clientCredentialsToken(baseUrl, ADMIN.id, ADMIN.secret, `${baseUrl}/api`, 'all');
    const call = (token: string, path: string, method = 'GET', json?: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });

    it('hands a reader every committed event once, in version order, before and after the restart', async () => {
      const first = await start();
      let token = await adminToken();
      const users: string[] = [];
      for (let i = 0; i < USERS; i += 1) {
        const res = await call(token, '/api/users', 'POST', { username: `restart_${i}` });
        expect(res.status).to.equal(201);
        users.push(((await res.json()) as { id: string }).id);
      }

      const answered = new Set<string>();
      let written = 0;
      let phase: 'before' | 'down' | 'after' | 'done' = 'before';
      let serial = 0;
      const write = async () => {
        while (phase !== 'done') {
          if (phase === 'down') {
            await pause(20);
            continue;
          }
          const current = phase;
          const name = `n${serial++}`;
          const user = users[Math.floor(Math.random() * users.length)]!;
          try {
            const res = await call(token, `/api/users/${user}`, 'PATCH', { name });
            if (res.status === 200) {
              answered.add(name);
              written += 1;
            }
          } catch {
            // The server is down: the writer waits for the restart.
            if (current === phase) await pause(50);
          }
          if (phase === 'after' && written >= BEFORE_KILL + AFTER_RESTART) phase = 'done';
        }
      };

      const seen: Listed[] = [];
      let cursor: string | undefined;
      let reading = true;
      const read = async () => {
        while (reading) {
          try {
            const query = new URLSearchParams({ limit: '7', ...(cursor === undefined ? {} : { after: cursor }) });
            const res = await call(token, `/api/events?${query}`);
            if (res.status === 200) {
              const page = (await res.json()) as { events: Listed[]; nextCursor: string };
              seen.push(...page.events);
              cursor = page.nextCursor;
              if (page.events.length === 7) continue;
            } else if (res.status !== 503) {
              // 503 while the restarted server starts; anything else is a failure.
              expect.fail(`GET /api/events answered ${res.status}: ${await res.text()}`);
            }
          } catch (error) {
            if ((error as Error).name === 'AssertionError') throw error;
          }
          await pause(Math.random() * 10);
        }
      };

      const reader = read();
      const writers = Array.from({ length: WRITERS }, write);
      const exited = once(first, 'exit');
      const deadline = performance.now() + 60_000;
      while (written < BEFORE_KILL && performance.now() < deadline) await pause(5);
      phase = 'down';
      process.kill(first.pid!, 'SIGKILL');
      await exited;
      await start();
      token = await adminToken();
      phase = 'after';
      await Promise.all(writers);
      // The reader catches up with everything committed, then stops.
      const everything: Listed[] = [];
      for (let after: string | undefined; ; ) {
        const res = await call(token, `/api/events?limit=500${after === undefined ? '' : `&after=${after}`}`);
        const page = (await res.json()) as { events: Listed[]; nextCursor: string };
        everything.push(...page.events);
        after = page.nextCursor;
        if (page.events.length < 500) break;
      }
      const top = everything.at(-1)!.sequence;
      const caughtUp = performance.now() + 30_000;
      while (Number(cursor ?? 0) < top && performance.now() < caughtUp) await pause(20);
      reading = false;
      await reader;

      expect(written).to.be.at.least(BEFORE_KILL + AFTER_RESTART);
      expect(
        everything.map((event) => event.sequence),
        'no gap',
      ).to.deep.equal(everything.map((_, i) => i + 1));
      expect(
        seen.map((event) => event.sequence),
        'the reader saw each once, in order',
      ).to.deep.equal(everything.map((event) => event.sequence));
      expect(seen, 'the reader saw what is stored').to.deep.equal(everything);
      const names = new Set(
        everything.filter((event) => event.event === 'User.Data.Updated').map((event) => event.data.name),
      );
      for (const name of answered) expect(names.has(name), `the answered change ${name}`).to.equal(true);
      for (const user of users) {
        const versions = seen.filter((event) => event.data.id === user).map((event) => event.version);
        expect(versions, `versions of ${user}`).to.deep.equal(versions.map((_, i) => i + 1));
      }
    });
  });
