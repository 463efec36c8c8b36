import type { EventRecorder } from '../events/bus.ts';
import type { DocumentStore } from '../ports/documents.ts';
import type { OutboxRepository } from './repository.ts';

/**
 * How the event bus makes events durable. Inside a transaction, the entry is written as the transaction's
 * last step (so it commits or rolls back with the change) and the relay is woken once it committed. Outside
 * one, or for events that stand on their own (an exception a failing request reports), it is written at once.
 */
export function createOutboxRecorder(deps: { store: DocumentStore; outbox: OutboxRepository; wake: () => void }): EventRecorder {
  return {
    async record(events, options, published) {
      const transaction = options.standalone ? undefined : deps.store.currentTransaction();
      if (!transaction) {
        await deps.store.outsideTransaction(() => deps.outbox.add(events));
        deps.wake();
        await published();
        return;
      }
      transaction.beforeCommit(() => deps.outbox.add(events));
      transaction.afterCommit(() => {
        deps.wake();
        return published();
      });
    },
  };
}
