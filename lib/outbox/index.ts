import type { DocumentStore } from '../ports/documents.ts';
import { createOutboxRepository } from './repository.ts';

export type { OutboxRepository } from './repository.ts';

/** The outbox's records: events stored with the change they announce, until the relay has handed them on. */
export function openOutbox(store: DocumentStore) {
  return createOutboxRepository(store);
}
