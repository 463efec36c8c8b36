import type { EventRecorder, IdentityEvent } from '../events/bus.ts';
import type { EventLog } from '../events/event-log.ts';
import type { RecordedEvent } from '../events/payloads.ts';
import type { DocumentStore, TransactionScope } from '../ports/documents.ts';
import type { OutboxRepository } from './repository.ts';

/** The events one `record` call asked for, and whom to tell once they committed. */
interface Recording {
  events: readonly IdentityEvent[];
  published: (recorded: readonly IdentityEvent[]) => Promise<void>;
  recorded: RecordedEvent[];
}

/**
 * How the event bus makes events durable. Inside a transaction, every event the transaction publishes is numbered and
 * stored in the event log and the outbox in one last step (so they commit or roll back with the change, and the
 * transaction takes the entity versions it needs, in key order, before the sequence, in one go: no two transactions
 * can wait for each other there); the relay is woken once it committed. Outside one, or for events that stand on their
 * own (an exception a failing request reports), they are written at once, in a transaction of their own.
 */
export function createOutboxRecorder(deps: {
  store: DocumentStore;
  outbox: OutboxRepository;
  log: Pick<EventLog, 'append'>;
  wake: () => void;
}): EventRecorder {
  async function write(events: readonly IdentityEvent[]): Promise<RecordedEvent[]> {
    const recorded = await deps.log.append(events);
    await deps.outbox.add(recorded);
    return recorded;
  }

  /** Each transaction's recordings not yet written; one written already takes no more (a later step starts another). */
  const open = new WeakMap<TransactionScope, Recording[]>();

  function join(transaction: TransactionScope, recording: Recording): void {
    const batch = open.get(transaction);
    if (batch) {
      batch.push(recording);
      return;
    }
    const recordings = [recording];
    open.set(transaction, recordings);
    transaction.beforeCommit(async () => {
      open.delete(transaction);
      const recorded = await write(recordings.flatMap((entry) => entry.events));
      let offset = 0;
      for (const entry of recordings) {
        entry.recorded = recorded.slice(offset, offset + entry.events.length);
        offset += entry.events.length;
      }
    });
    transaction.afterCommit(async () => {
      deps.wake();
      for (const entry of recordings) await entry.published(entry.recorded);
    });
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
      join(transaction, { events, published, recorded: [] });
    },
  };
}
