import type { RecordedEvent } from '../events/payloads.ts';
import { newId } from '../ids.ts';
import type { DocumentStore } from '../ports/documents.ts';

/** Events of one committed change, waiting to be handed to the delivery queue. */
export interface OutboxEntry {
  id: string;
  events: RecordedEvent[];
  /** Epoch ms when the change was recorded. */
  createdAt: number;
  /** The claim this relay holds on it: only its holder may complete or release it. */
  claim: string;
  /** How many times it was claimed, this claim included: above 1, an earlier forward may have done part of it. */
  attempts: number;
}

interface OutboxRecord {
  _id: string;
  /** JSON, so that whatever an event carries (keys with dots or dollars) is stored as it is. */
  events: string;
  createdAt: Date;
  /** When the entry may be claimed: its creation, the end of a claim's lease, or a retry's time. */
  availableAt: Date;
  claim: string | null;
  attempts: number;
}

/**
 * The `outbox` collection: writers add entries inside the transaction of the change they announce; relays
 * claim due entries, forward them, and delete them. A claim is a lease: an entry whose relay died becomes
 * due again when the lease ends.
 */
export function createOutboxRepository(store: DocumentStore) {
  const outbox = store.collection<OutboxRecord>('outbox');

  return {
    async prepare(): Promise<void> {
      await outbox.createIndex({ keys: { availableAt: 1 } });
      await outbox.createIndex({ keys: { claim: 1 } });
    },
    /** Adds one entry; inside a transaction when the caller runs in one. */
    async add(events: readonly RecordedEvent[]): Promise<void> {
      const now = new Date();
      await outbox.insertOne({
        _id: `obx_${newId()}`,
        events: JSON.stringify(events),
        createdAt: now,
        availableAt: now,
        claim: null,
        attempts: 0,
      });
    },
    /**
     * Claims up to `limit` due entries, oldest first, for `leaseMs`. Each entry is taken by a conditional
     * update that only matches while it is due, so of two relays racing for one, exactly one gets it.
     */
    async claim(limit: number, leaseMs: number): Promise<OutboxEntry[]> {
      const now = new Date();
      const due = await outbox.find(
        { availableAt: { $lte: now } },
        { sort: { availableAt: 1, createdAt: 1 }, limit, projection: { _id: 1 } },
      );
      if (due.length === 0) return [];
      const claim = newId();
      await outbox.updateMany(
        { _id: { $in: due.map((doc) => doc._id) }, availableAt: { $lte: now } },
        { $set: { claim, availableAt: new Date(now.getTime() + leaseMs) }, $inc: { attempts: 1 } },
      );
      const claimed = await outbox.find({ claim }, { sort: { createdAt: 1 } });
      return claimed.map((doc) => ({
        id: doc._id,
        events: JSON.parse(doc.events) as RecordedEvent[],
        createdAt: doc.createdAt.getTime(),
        claim,
        attempts: doc.attempts,
      }));
    },
    /** The entries were forwarded: they leave the outbox, in one write (those whose claim was taken over stay). */
    async complete(entries: readonly OutboxEntry[]): Promise<void> {
      const [first] = entries;
      if (!first) return;
      if (entries.length === 1) {
        await outbox.deleteOne({ _id: first.id, claim: first.claim });
        return;
      }
      const claims = [...new Set(entries.map((entry) => entry.claim))];
      for (const claim of claims) {
        const ids = entries.filter((entry) => entry.claim === claim).map((entry) => entry.id);
        await outbox.deleteMany({ _id: { $in: ids }, claim });
      }
    },
    /** Forwarding failed: the entry is due again at `at`. */
    async release(entry: OutboxEntry, at: Date): Promise<void> {
      await outbox.updateOne({ _id: entry.id, claim: entry.claim }, { $set: { claim: null, availableAt: at } });
    },
    /** Entries not yet forwarded (readiness, tests). */
    async size(): Promise<number> {
      return outbox.countDocuments({});
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
