import { createHmac, randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { LOOPBACK_NETWORKS, startService, type RunningService } from '../service.ts';
import type { ReceivedRequest, Receiver } from './receiver.ts';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Fast schedules so retries and exhaustion happen within a test; the receivers' loopback allowed, also for
 * workers started from this environment alone.
 */
export const FAST_ENV = {
  WEBHOOK_RETRY_DELAYS_MS: '50,100',
  WEBHOOK_TIMEOUT_MS: '2000',
  LOG_LEVEL: 'silent',
  WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
};

export type Backend = 'memory' | 'bullmq';
export const BACKENDS: Backend[] = ['memory', 'bullmq'];

/** A queue name no other test run uses (BullMQ keys live in a shared Redis). */
export function uniqueQueueName(label: string): string {
  return `test-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * A service with embedded documents and either the in-process queue or BullMQ on the real Redis. With
 * embedded documents and no WEBHOOK_QUEUE_NAME, the BullMQ queue is private to the instance and removed
 * on close, so parallel runs never share jobs.
 */
export function startHookService(
  backend: Backend,
  env: Record<string, string | undefined> = {},
): Promise<RunningService> {
  return startService({ env: { ...FAST_ENV, REDIS_URL: backend === 'bullmq' ? REDIS_URL : undefined, ...env } });
}

export interface CreatedHook {
  id: string;
  signingKey: string;
  [field: string]: unknown;
}

export async function createHook(running: RunningService, body: Record<string, unknown>): Promise<CreatedHook> {
  const response = await running.request('/api/hooks', { method: 'POST', json: { name: 'test hook', ...body } });
  expect(response.status, await response.clone().text()).to.equal(201);
  return (await response.json()) as CreatedHook;
}

/** The JSON body of a response, untyped (tests assert on its shape). */
export async function bodyOf(response: Response): Promise<any> {
  return response.json();
}

export async function getJson<T = any>(running: RunningService, path: string): Promise<T> {
  const response = await running.request(path);
  expect(response.status, await response.clone().text()).to.equal(200);
  return (await response.json()) as T;
}

/**
 * Verifies a received delivery as real consumers do: the Standard Webhooks verifier (`standardwebhooks`
 * package) with the whsec_ key, and Logto's hex HMAC of the body keyed by the key string. Returns the payload.
 */
export function verifyDelivery(request: ReceivedRequest, signingKey: string): Record<string, any> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const payload = new Webhook(signingKey).verify(request.body, headers) as Record<string, any>;
  const expected = createHmac('sha256', signingKey).update(request.body, 'utf8').digest('hex');
  expect(request.headers['logto-signature-sha-256']).to.equal(expected);
  return payload;
}

/** A BullMQ handle on a named queue, to look at its jobs from outside the service. */
export async function withQueue<T>(queueName: string, use: (queue: Queue) => Promise<T>): Promise<T> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection });
  try {
    return await use(queue);
  } finally {
    await queue.close();
    await connection.quit();
  }
}

/** Deletes a named BullMQ queue and its jobs (explicitly named queues outlive the services using them). */
export function removeQueue(queueName: string): Promise<void> {
  return withQueue(queueName, (queue) => queue.obliterate({ force: true }));
}

/** Checks every request a receiver got, as a consumer would, against the key of the hook it was sent for. */
export class DeliveryVerifier {
  readonly #receiver: Receiver;
  readonly #keys = new Map<string, string>();
  #checked = 0;

  constructor(receiver: Receiver) {
    this.#receiver = receiver;
  }

  /** Requests to `path` must be signed with `signingKey`. */
  expect(path: string, signingKey: string): void {
    this.#keys.set(path, signingKey);
  }

  /** Verifies what arrived since the last call; fails on a request to a path with no known key. */
  verifyNew(): number {
    const received = this.#receiver.requests();
    for (const request of received.slice(this.#checked)) {
      const key = this.#keys.get(request.path);
      if (!key) throw new Error(`a delivery arrived at ${request.path}, where no hook was expected to send`);
      verifyDelivery(request, key);
    }
    const count = received.length - this.#checked;
    this.#checked = received.length;
    return count;
  }
}
