/**
 * The durable delivery queue: the in-process queue (adapters/memory/delivery-queue.ts) journalled in the
 * `delivery_jobs` table, one row per delivery: its job, the attempts made, processor errors and when it is due.
 * A job is enqueued once its row is committed; a retry's time is stored when it is scheduled. With the documents in
 * the same file (`withDocuments`), a row is committed with its delivery's record, and its removal or next time with
 * the attempt's outcome; otherwise an attempt is made once its start is committed. At start every row is read back,
 * and each job resumes at its stored time, so a delivery waiting for a retry keeps its schedule across a restart, and
 * an attempt cut short by a crash is made again (the same `webhook-id`).
 */
import type { DeliveryQueue } from '../../lib/ports/queue.ts';
import {
  createMemoryDeliveryQueue,
  type MemoryDeliveryQueueOptions,
  type StoredDelivery,
} from '../memory/delivery-queue.ts';
import { storedJob } from '../../lib/webhooks/payload.ts';
import type { SqliteDatabase } from './database.ts';

function storedDeliveries(database: SqliteDatabase): StoredDelivery[] {
  return database.db
    .prepare('SELECT job, attempt, errors, run_at FROM delivery_jobs ORDER BY run_at')
    .all()
    .map((row) => ({
      job: storedJob(JSON.parse(String(row.job))),
      attempt: Number(row.attempt),
      errors: Number(row.errors),
      runAt: Number(row.run_at),
    }));
}

export function createSqliteDeliveryQueue(
  database: SqliteDatabase,
  options: Omit<MemoryDeliveryQueueOptions, 'kind' | 'journal' | 'restored'> = {},
): DeliveryQueue {
  const run = (sql: string, ...params: Array<string | number>) =>
    database.write(() => {
      database.statement(sql).run(...params);
    });
  return createMemoryDeliveryQueue({
    ...options,
    kind: 'sqlite',
    restored: storedDeliveries(database),
    journal: {
      added(deliveries) {
        return database.write(() => {
          const insert = database.statement(
            'INSERT INTO delivery_jobs (delivery_id, job, attempt, errors, run_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (delivery_id) DO NOTHING',
          );
          for (const { job, attempt, errors, runAt } of deliveries)
            insert.run(job.deliveryId, JSON.stringify(job), attempt, errors, runAt);
        });
      },
      started: (deliveryId, attempt) =>
        run('UPDATE delivery_jobs SET attempt = ? WHERE delivery_id = ?', attempt, deliveryId),
      scheduled: ({ job, attempt, errors, runAt }) =>
        run(
          'UPDATE delivery_jobs SET attempt = ?, errors = ?, run_at = ? WHERE delivery_id = ?',
          attempt,
          errors,
          runAt,
          job.deliveryId,
        ),
      finished: (deliveryId) => run('DELETE FROM delivery_jobs WHERE delivery_id = ?', deliveryId),
    },
  });
}
