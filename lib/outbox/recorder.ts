import type { EventRecorder, IdentityEvent } from '../events/bus.ts';
import type { EventLog } from '../events/event-log.ts';
import type { RecordedEvent } from '../events/payloads.ts';
import type { DocumentStore } from '../ports/documents.ts';
import type { OutboxRepository } from './repository.ts';

/**
 * How the event bus makes events durable. Inside a transaction, the events are numbered and stored in the event log
 * and the outbox as the transaction's last steps (so they commit or roll back with the change) and the relay is woken
 * once it committed. Outside one, or for events that stand on their own (an exception a failing request reports),
 * they are written at once, in a transaction of their own.
 */
export function createOutboxRecorder(deps: {
  store: DocumentStore; outbox: OutboxRepository; log: Pick<EventLog, 'append'>; wake: () => void;
}): EventRecorder {
  async function write(events: readonly IdentityEvent[]): Promise<RecordedEvent[]> {
    const recorded = await deps.log.append(events);
    await deps.outbox.add(recorded);
    return recorded;
  }

  return {
    async record(events, options, published) {
      const transaction = options.standalone ? undefined : deps.store.currentTransaction();
      if (!transaction) {
        const recorded = await deps.store.outsideTransaction(() => deps.store.transaction(() => write(events)));
        deps.wake();
        await published(recorded);
        return;
      }
      let recorded: RecordedEvent[] = [];
      transaction.beforeCommit(async () => {
        recorded = await write(events);
      });
      transaction.afterCommit(() => {
        deps.wake();
        return published(recorded);
      });
    },
  };
}
