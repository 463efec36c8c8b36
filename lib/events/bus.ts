import {
  isDataEvent,
  isInteractionEvent,
  type DataEventName,
  type EventName,
  type ExceptionEventName,
  type ImpersonationEventName,
} from './catalogue.ts';
import {
  INTERACTION_KINDS,
  type DataEventContext,
  type EventContext,
  type EventPayloads,
  type ExceptionContext,
  type IdentityEvent,
  type InteractionContext,
  type InteractionPayload,
} from './payloads.ts';

export type { IdentityEvent } from './payloads.ts';

export type EventListener = (events: readonly IdentityEvent[]) => Promise<void>;

/** Makes events durable before they count as published (the transactional outbox). */
export interface EventRecorder {
  /**
   * Stores the events: with the caller's transaction when there is one, unless `standalone` (they stand
   * whatever that transaction does). `published` runs once they are committed, with the events as recorded
   * (numbered: `sequence`, and a data event's `version`).
   */
  record(
    events: readonly IdentityEvent[],
    options: { standalone: boolean },
    published: (recorded: readonly IdentityEvent[]) => Promise<void>,
  ): Promise<void>;
}

/** One event a producer states: its name and its payload. */
export type EventDraft<N extends EventName = EventName> = N extends EventName
  ? { event: N; payload: EventPayloads[N] }
  : never;

/** The context is required for events that happen in a request, optional for exceptions and impersonations. */
type ContextArgs<N extends EventName> = N extends ExceptionEventName | ImpersonationEventName
  ? [context?: EventContext<N>]
  : [context: EventContext<N>];

/**
 * The event as consumers receive it, fields in Logto's order: name, time, the request context, then the
 * payload (a data event's `data` last).
 */
export function stampEvent<N extends EventName>(
  name: N,
  payload: EventPayloads[N],
  context: EventContext<N>,
  createdAt: Date,
): IdentityEvent<N> {
  const head = { event: name, createdAt: createdAt.toISOString() };
  // The payload map ties each name to its payload and context; TypeScript cannot follow that through a
  // generic name, so the finished objects are asserted here.
  if (isInteractionEvent(name)) {
    const { sessionId, userIp, userAgent } = context as InteractionContext;
    const { userId, user, application } = payload as InteractionPayload;
    const event = {
      ...head,
      interactionEvent: INTERACTION_KINDS[name],
      sessionId,
      userId,
      userIp,
      userAgent,
      user,
      application,
    };
    return event as unknown as IdentityEvent<N>;
  }
  if (isDataEvent(name)) {
    const { data, ...fields } = payload as EventPayloads[DataEventName];
    return { ...head, ...(context as DataEventContext), ...fields, data } as unknown as IdentityEvent<N>;
  }
  const known = Object.entries(context as ExceptionContext).filter(([, value]) => value !== undefined);
  return { ...head, ...Object.fromEntries(known), ...payload } as IdentityEvent<N>;
}

/**
 * In-process publish/subscribe. Producers `emit` (the bus stamps the time and the request context). With a
 * recorder, events are first stored with the change they announce (the outbox, from which a relay feeds
 * webhook delivery), and listeners receive them once that is committed: a change that rolls back publishes
 * nothing. Exception events (a lockout, a refused message) stand on their own: a request that fails because
 * of them still publishes them.
 */
export class EventBus {
  readonly #listeners: EventListener[] = [];
  readonly #recorder: EventRecorder | undefined;

  constructor(recorder?: EventRecorder) {
    this.#recorder = recorder;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** Publishes one event that happened now. */
  async emit<N extends EventName>(name: N, payload: EventPayloads[N], ...context: ContextArgs<N>): Promise<void> {
    const [requestContext = {}] = context;
    await this.publish([stampEvent(name, payload, requestContext as EventContext<N>, new Date())]);
  }

  /** Publishes the data events of one request or flow together, with one `createdAt`. */
  async emitAll(context: DataEventContext, drafts: ReadonlyArray<EventDraft<DataEventName>>): Promise<void> {
    const now = new Date();
    await this.publish(drafts.map((draft) => stampEvent(draft.event, draft.payload, context, now)));
  }

  /** Publishes events already stamped, in order (`emit` for new events; tests inject crafted ones). */
  async publish(events: readonly IdentityEvent[]): Promise<void> {
    if (events.length === 0) return;
    const recorder = this.#recorder;
    if (!recorder) return this.#handOut(events);
    const standalone = events.filter((event) => !isDataEvent(event.event) && !isInteractionEvent(event.event));
    const joined = events.filter((event) => !standalone.includes(event));
    const handOut = (recorded: readonly IdentityEvent[]) => this.#handOut(recorded);
    if (joined.length > 0) await recorder.record(joined, { standalone: false }, handOut);
    if (standalone.length > 0) await recorder.record(standalone, { standalone: true }, handOut);
  }

  async #handOut(events: readonly IdentityEvent[]): Promise<void> {
    for (const listener of this.#listeners) await listener(events);
  }
}
