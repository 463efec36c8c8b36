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
  /** Runs one operation; answers its result and its net data events, in order (see netEvents). */
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
      return { value, events: netEvents(events) };
    },
  };
}

/**
 * One operation may change an entity in several steps (a registration creates the account, then links its social
 * identity; a sign-in stamps the profile, then stores a new factor). Subscribers are told the net change, once: an
 * entity's `<Type>.Data.Updated` after its `<Type>.Created` or an earlier `<Type>.Data.Updated` in the same
 * operation gives that earlier event the entity's final state, in the earlier event's place.
 */
function netEvents(events: EventDraft<DataEventName>[]): EventDraft<DataEventName>[] {
  const net: EventDraft<DataEventName>[] = [];
  const placeOf = new Map<string, number>();
  for (const draft of events) {
    const [type, ...rest] = draft.event.split('.');
    const kind = rest.join('.');
    const data = (draft.payload as { data?: unknown }).data;
    const id = typeof data === 'object' && data !== null ? (data as { id?: unknown }).id : undefined;
    if (typeof id !== 'string' || (kind !== 'Created' && kind !== 'Data.Updated')) {
      net.push(draft);
      continue;
    }
    const key = `${type} ${id}`;
    const earlier = placeOf.get(key);
    if (earlier !== undefined && kind === 'Data.Updated') {
      const first = net[earlier]!;
      net[earlier] = { ...first, payload: { ...first.payload, data } } as EventDraft<DataEventName>;
      continue;
    }
    placeOf.set(key, net.length);
    net.push(draft);
  }
  return net;
}
