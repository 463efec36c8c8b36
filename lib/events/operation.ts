import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventDraft } from './bus.ts';
import type { DataEventName } from './catalogue.ts';
import type { EventPayloads } from './payloads.ts';
import { publishedPayload } from './schemas.ts';

/** How a library states what it changed: the data event's name and payload, nothing of the request around it. */
export type EmitData = <N extends DataEventName>(name: N, payload: EventPayloads[N]) => void;

/**
 * The data events of one operation (a management request, a step of an end-user flow). Libraries `emit` as they
 * change things; the layer that opened the operation publishes what was emitted, stamped with its context, once
 * the operation has succeeded, in the transaction that stores the change. An operation that fails publishes
 * nothing. Outside any operation (start-up provisioning) nothing is published, as no request asked for the change.
 */
export interface OperationEvents {
  emit: EmitData;
  /** Runs one operation; answers its result and the events emitted during it, in order. */
  collect<T>(operation: () => Promise<T>): Promise<{ value: T; events: EventDraft<DataEventName>[] }>;
}

/** One per service instance: operations nest (an inner one keeps its events to itself). */
export function createOperationEvents(): OperationEvents {
  const current = new AsyncLocalStorage<EventDraft<DataEventName>[]>();
  return {
    emit(name, payload) {
      // Asserted: TypeScript cannot tie a generic name to its payload through the draft union.
      current.getStore()?.push({ event: name, payload: publishedPayload(name, payload) } as EventDraft<DataEventName>);
    },
    async collect(operation) {
      const events: EventDraft<DataEventName>[] = [];
      const value = await current.run(events, operation);
      return { value, events };
    },
  };
}
