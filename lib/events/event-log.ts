import type { DocumentStore } from '../ports/documents.ts';
import { errors } from '../errors.ts';
import { eventText } from '../webhooks/payload.ts';
import type { IdentityEvent } from './bus.ts';
import { isDataEvent, type EventName } from './catalogue.ts';
import { entityKey, entityOf } from './entities.ts';
import { numberedEvent, type RecordedEvent } from './payloads.ts';

/** One retained event: its numbers beside the body consumers receive (JSON text, without secret-looking fields). */
interface EventRecord {
  _id: string;
  sequence: number;
  event: EventName;
  /** `Kind:id` of a data event's entity, null for other events. */
  entity: string | null;
  version: number | null;
  body: string;
  /** When its transaction took its sequence (just before committing). */
  recordedAt: Date;
  expiresAt: Date;
}

/** The one counter of the commit order. */
interface SequenceRecord {
  _id: string;
  value: number;
}

interface VersionRecord {
  _id: string;
  version: number;
}

const SEQUENCE_ID = 'events';

export interface EventPage {
  events: Array<Record<string, unknown>>;
  /** The cursor to pass as `after` next: every event up to it was either listed or does not match `types`. */
  next: number;
}

export interface EventPageQuery {
  /** The cursor: a `next` handed out before; absent = from the oldest retained event. */
  after: number | undefined;
  limit: number;
  types: readonly EventName[] | undefined;
}

/**
 * The event log: every event gets its sequence, and every data event its entity's version, as the last writes of the
 * transaction that commits it (with its change and its outbox entry). The sequence is one counter document: writing
 * it locks it until the transaction ends (the embedded stores make the next writer wait, MongoDB fails it with a
 * transient conflict), so sequences are taken one transaction at a time, each committed or rolled back (its number
 * then taken again) before the next is handed out. Commit order and sequence order are therefore the same, and a
 * reader that sees the counter at `n` can read every event up to `n`: that counter, held below the transactions of
 * this process whose commit is not yet durable, is the watermark the events API lists up to. Retained events expire `retentionMs` after they were recorded (the store's TTL sweep removes them).
 */
export function createEventLog(store: DocumentStore, options: { retentionMs: number }) {
  const log = store.collection<EventRecord>('events');
  const sequences = store.collection<SequenceRecord>('event_sequence');
  const versions = store.collection<VersionRecord>('entity_versions');

  /**
   * The first sequence of each transaction of this process that took numbers and has not ended yet. The embedded
   * stores show a commit to readers a moment before it is durable (the SQLite file's group commit): until it is,
   * the watermark stays below it, so that no reader is handed an event a crash would take back.
   */
  const pending = new Map<symbol, number>();

  /** The highest sequence up to which every event is committed (durably) or known aborted. */
  async function watermark(): Promise<number> {
    const counter = (await sequences.findOne({ _id: SEQUENCE_ID }))?.value ?? 0;
    let top = counter;
    for (const first of pending.values()) top = Math.min(top, first - 1);
    return top;
  }

  /** Keeps `first` pending until the transaction ends, whichever way. */
  function holdUntilEnd(first: number): void {
    const transaction = store.currentTransaction();
    if (!transaction) throw new Error('events are numbered inside a transaction');
    const token = Symbol('numbered');
    pending.set(token, first);
    const release = () => {
      pending.delete(token);
    };
    transaction.afterCommit(release);
    transaction.afterAbort(release);
  }

  /** Takes the next version of each entity the events change, entities in key order (no two writers cross). */
  async function nextVersions(keys: ReadonlyArray<string | undefined>): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const key of keys) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    const first = new Map<string, number>();
    for (const key of [...counts.keys()].sort()) {
      const count = counts.get(key)!;
      const after = await versions.findOneAndUpdate(
        { _id: key },
        { $inc: { version: count } },
        { upsert: true, returnDocument: 'after' },
      );
      first.set(key, after!.version - count + 1);
    }
    return first;
  }

  return {
    async prepare(): Promise<void> {
      await log.createIndex({ keys: { sequence: 1 } });
      await log.createIndex({ keys: { recordedAt: 1 } });
      await log.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
      // Created before any writer races for it: concurrent first upserts of one document could both insert.
      await sequences.updateOne({ _id: SEQUENCE_ID }, { $setOnInsert: { value: 0 } }, { upsert: true });
    },

    /**
     * Numbers and stores the events of one commit: call it inside the transaction, as its last writes. Returns the
     * events with `sequence` (and `version`) after `createdAt`.
     */
    async append(events: readonly IdentityEvent[]): Promise<RecordedEvent[]> {
      const keys = events.map((event) => {
        if (!isDataEvent(event.event)) return undefined;
        const entity = entityOf(event as unknown as Record<string, unknown>);
        return entity && entityKey(entity);
      });
      const next = await nextVersions(keys);
      const counter = await sequences.findOneAndUpdate(
        { _id: SEQUENCE_ID },
        { $inc: { value: events.length } },
        { upsert: true, returnDocument: 'after' },
      );
      const first = counter!.value - events.length + 1;
      holdUntilEnd(first);
      const recordedAt = new Date();
      const expiresAt = new Date(recordedAt.getTime() + options.retentionMs);
      const recorded: RecordedEvent[] = [];
      const records: EventRecord[] = events.map((stamped, index) => {
        const key = keys[index];
        let version: number | null = null;
        if (key !== undefined) {
          version = next.get(key)!;
          next.set(key, version + 1);
        }
        const sequence = first + index;
        const numbered = numberedEvent(stamped, sequence, version);
        recorded.push(numbered);
        return {
          _id: `evt_${sequence}`,
          sequence,
          event: stamped.event,
          entity: key ?? null,
          version,
          body: eventText(numbered),
          recordedAt,
          expiresAt,
        };
      });
      await log.insertMany(records);
      return recorded;
    },

    /**
     * Retained events after the cursor, in sequence order, up to the watermark read first: every event at or below
     * it has committed durably or aborted, so none can appear later below a cursor handed out. 400 `event.invalid_cursor` for a cursor
     * beyond the watermark (never handed out here); 410 `event.cursor_expired` when events after the cursor are no
     * longer retained.
     */
    async page(query: EventPageQuery): Promise<EventPage> {
      const top = await watermark();
      const now = new Date();
      if (query.after !== undefined) {
        if (query.after > top)
          throw errors.invalid('event.invalid_cursor', `cursor ${query.after} is beyond the latest event`);
        const oldest = await log.findOne(
          { sequence: { $lte: top }, expiresAt: { $gt: now } },
          { sort: { sequence: 1 } },
        );
        const firstRetained = oldest?.sequence ?? top + 1;
        if (query.after < firstRetained - 1) {
          throw errors.gone(
            'event.cursor_expired',
            `events after ${query.after} are no longer retained; the oldest retained is ${firstRetained}`,
            {
              oldestRetained: oldest ? firstRetained : null,
            },
          );
        }
      }
      const docs = await log.find(
        {
          sequence: { $gt: query.after ?? 0, $lte: top },
          expiresAt: { $gt: now },
          ...(query.types ? { event: { $in: [...query.types] } } : {}),
        },
        { sort: { sequence: 1 }, limit: query.limit },
      );
      const full = docs.length === query.limit;
      return {
        events: docs.map((doc) => JSON.parse(doc.body) as Record<string, unknown>),
        next: full ? docs.at(-1)!.sequence : top,
      };
    },

    /**
     * Retained events recorded in [since, until] after sequence `after`, of the given types, in sequence order, at most
     * `limit`, each with its sequence: what a replay sends again. Only up to the watermark.
     */
    async window(query: { since: Date; until: Date; after: number; types: readonly EventName[]; limit: number }) {
      const top = await watermark();
      const docs = await log.find(
        {
          sequence: { $gt: query.after, $lte: top },
          recordedAt: { $gte: query.since, $lte: query.until },
          expiresAt: { $gt: new Date() },
          event: { $in: [...query.types] },
        },
        { sort: { sequence: 1 }, limit: query.limit },
      );
      return docs.map((doc) => ({
        sequence: doc.sequence,
        event: doc.event,
        body: doc.body,
      }));
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
