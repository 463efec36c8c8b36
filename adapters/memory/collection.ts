/**
 * One collection of the in-memory document store: MongoDB's semantics for filters, update operators, unique and TTL
 * indexes (query.ts, update.ts, indexes.ts) over the committed documents (committed.ts), with the isolation of
 * transactions.ts: a transaction reads the committed documents under its own overlay, and every write locks the
 * documents it changes and reserves the unique keys of their new versions until the transaction ends.
 *
 * A write is planned (what to store under which key), checked against what other transactions hold (MustWait makes
 * it wait and plan again), then applied in order: to the overlay inside a transaction, to the committed documents
 * outside one. Expired TTL documents are swept lazily at the start of each operation, without timers.
 */
import {
  DuplicateKeyError,
  type Doc,
  type DocumentCollection,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Filter,
  type IndexSpec,
  type UpdateOptions,
  type UpdateResult,
  type Update,
} from '../../lib/ports/documents.ts';
import { CommittedDocuments, idKeyOfFilter, matchesNeeded, pageOf, type CommittedState } from './committed.ts';
import { indexEntries, type MemoryIndex } from './indexes.ts';
import { compileFilter, compileProjection, compileSort, type Predicate } from './query.ts';
import {
  MemoryTransaction,
  MustWait,
  type CommittedChange,
  type MemoryTransactions,
  type Participant,
} from './transactions.ts';
import { applyUpdate, seedFromFilter, validateUpdate } from './update.ts';
import { copyIn, idKey, copyOut, immutableIdError, isPlainObject, newId, valuesEqual, withIdFirst } from './values.ts';

/** One document a write stores (`after`) or removes (null) under its key. */
interface Write {
  id: string;
  after: Doc | null;
  /** `change`: of a document the plan found; `insert`/`upsert`: of a new one (an upsert waits where an insert fails). */
  kind: 'change' | 'insert' | 'upsert';
  /**
   * For a change, the version the plan found: the one the transaction (or everyone) sees, as the plan and the write
   * run in one synchronous step. A disk-resident collection would otherwise read it again.
   */
  before?: Doc;
}

/** A unique-index entry held by an uncommitted version. */
interface Reservation {
  transaction: MemoryTransaction;
  id: string;
}

type Reserved = Map<string, Reservation>;

export class EmbeddedCollection implements DocumentCollection<Doc>, Participant {
  readonly name: string;
  readonly #transactions: MemoryTransactions;
  readonly #committed: CommittedState;
  /** Document key → the transaction that wrote it, until that one ends. */
  readonly #locks = new Map<string, MemoryTransaction>();
  /** Per unique index, the entries uncommitted versions hold. */
  readonly #reserved = new Map<MemoryIndex, Reserved>();
  /** Per transaction and document key, the entries its version of that document reserved. */
  readonly #reservations = new Map<MemoryTransaction, Map<string, Array<[Reserved, string]>>>();

  /** `committed`: where the committed documents are kept; in memory unless given. */
  constructor(
    name: string,
    transactions: MemoryTransactions,
    committed: CommittedState = new CommittedDocuments(name),
  ) {
    this.name = name;
    this.#transactions = transactions;
    this.#committed = committed;
  }

  /** Changes so far; documents due to expire are removed first, so their expiry counts as soon as it is due. */
  changeCount(): number | undefined {
    this.#sweep();
    return this.#committed.changeCount();
  }

  async insertOne(doc: Doc): Promise<void> {
    const prepared = this.#prepareInsert(doc);
    await this.#write(() => ({
      writes: [{ id: idKey(prepared._id), after: prepared, kind: 'insert' }],
      result: undefined,
    }));
  }

  async insertMany(docs: Doc[]): Promise<void> {
    // Like the driver: ids are assigned up front, then documents go in order until the first failure.
    const prepared = docs.map((doc) => this.#prepareInsert(doc));
    await this.#write(() => ({
      writes: prepared.map((doc): Write => ({ id: idKey(doc._id), after: doc, kind: 'insert' })),
      result: undefined,
    }));
  }

  async findOne(filter: Filter, options: Omit<FindOptions, 'limit' | 'skip'> = {}): Promise<Doc | null> {
    return this.#find(filter, { ...options, limit: 1 })[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.#find(filter, options);
  }

  async countDocuments(filter: Filter): Promise<number> {
    const predicate = compileFilter(filter);
    const transaction = this.#transactions.current();
    if (!transaction?.writes.has(this)) {
      this.#sweep();
      return this.#committed.count(filter, predicate);
    }
    return this.#matching(filter, predicate, Number.POSITIVE_INFINITY, transaction).length;
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    validateUpdate(update);
    const predicate = compileFilter(filter);
    return this.#write((transaction) => {
      const target = this.#matching(filter, predicate, 1, transaction)[0];
      if (target) {
        const next = this.#updated(target, update);
        return {
          writes: [this.#change(target, next)],
          result: { matchedCount: 1, modifiedCount: next === target ? 0 : 1, upsertedId: null },
        };
      }
      if (!options.upsert) return { writes: [], result: { matchedCount: 0, modifiedCount: 0, upsertedId: null } };
      const inserted = this.#upserted(filter, update);
      return {
        writes: [this.#upsert(inserted)],
        result: { matchedCount: 0, modifiedCount: 0, upsertedId: copyOut(inserted._id) },
      };
    });
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    validateUpdate(update);
    const predicate = compileFilter(filter);
    return this.#write((transaction) => {
      const targets = this.#matching(filter, predicate, Number.POSITIVE_INFINITY, transaction);
      const writes = targets.map((target) => this.#change(target, this.#updated(target, update)));
      const modifiedCount = writes.filter((write, i) => write.after !== targets[i]).length;
      return { writes, result: { matchedCount: targets.length, modifiedCount, upsertedId: null } };
    });
  }

  async replaceOne(filter: Filter, doc: Doc, options: UpdateOptions = {}): Promise<UpdateResult> {
    if (!isPlainObject(doc) || Object.keys(doc).some((key) => key.startsWith('$'))) {
      throw new Error('replacement document must not contain update operators');
    }
    const predicate = compileFilter(filter);
    return this.#write((transaction) => {
      const target = this.#matching(filter, predicate, 1, transaction)[0];
      if (target) {
        const next = copyIn(doc);
        if (next._id !== undefined && !valuesEqual(next._id, target._id)) throw immutableIdError();
        const replacement = withIdFirst({ ...next, _id: target._id });
        const unchanged = valuesEqual(replacement, target);
        return {
          writes: [this.#change(target, unchanged ? target : replacement)],
          result: { matchedCount: 1, modifiedCount: unchanged ? 0 : 1, upsertedId: null },
        };
      }
      if (!options.upsert) return { writes: [], result: { matchedCount: 0, modifiedCount: 0, upsertedId: null } };
      // A replacement upsert takes only `_id` from the filter, never the other equality fields.
      const inserted = copyIn(doc);
      inserted._id ??= seedFromFilter(filter)._id ?? newId();
      if (Array.isArray(inserted._id)) throw new Error("the '_id' value cannot be an array");
      const stored = withIdFirst(inserted);
      return {
        writes: [this.#upsert(stored)],
        result: { matchedCount: 0, modifiedCount: 0, upsertedId: copyOut(stored._id) },
      };
    });
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<Doc | null> {
    validateUpdate(update);
    const predicate = compileFilter(filter);
    const project = compileProjection(options.projection);
    const sort = compileSort(options.sort);
    const after = options.returnDocument === 'after';
    const result = await this.#write((transaction) => {
      // Outside a transaction's own writes the committed documents plan the query (an index may serve the sort).
      const target = transaction?.writes.has(this)
        ? sort(this.#matching(filter, predicate, Number.POSITIVE_INFINITY, transaction), 1)[0]
        : this.#committed.page(filter, predicate, { sort: options.sort, limit: 1 })[0];
      if (target) {
        const updated = this.#updated(target, update);
        return { writes: [this.#change(target, updated)], result: after ? updated : target };
      }
      if (!options.upsert) return { writes: [], result: null };
      const inserted = this.#upserted(filter, update);
      return { writes: [this.#upsert(inserted)], result: after ? inserted : null };
    });
    return result && copyOut(project(result));
  }

  async findOneAndDelete(filter: Filter): Promise<Doc | null> {
    const predicate = compileFilter(filter);
    const removed = await this.#write((transaction) => {
      const target = this.#matching(filter, predicate, 1, transaction)[0];
      return { writes: target ? [this.#removal(target)] : [], result: target ?? null };
    });
    return removed && copyOut(removed);
  }

  async deleteOne(filter: Filter): Promise<number> {
    const predicate = compileFilter(filter);
    return this.#write((transaction) => {
      const target = this.#matching(filter, predicate, 1, transaction)[0];
      return { writes: target ? [this.#removal(target)] : [], result: target ? 1 : 0 };
    });
  }

  async deleteMany(filter: Filter): Promise<number> {
    const predicate = compileFilter(filter);
    return this.#write((transaction) => {
      const targets = this.#matching(filter, predicate, Number.POSITIVE_INFINITY, transaction);
      return { writes: targets.map((target) => this.#removal(target)), result: targets.length };
    });
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    this.#sweep();
    this.#committed.createIndex(spec);
  }

  commitWrites(transaction: MemoryTransaction, changes: CommittedChange[]): void {
    const overlay = transaction.writes.get(this);
    if (!overlay) return;
    const written = this.#committed.writesThrough;
    this.#committed.applyAll(overlay, (id, before, after) =>
      changes.push({ collection: this, id, before, after, written }),
    );
  }

  release(transaction: MemoryTransaction): void {
    const overlay = transaction.writes.get(this);
    if (overlay) {
      for (const id of overlay.keys()) if (this.#locks.get(id) === transaction) this.#locks.delete(id);
    }
    const mine = this.#reservations.get(transaction);
    if (!mine) return;
    for (const held of mine.values()) this.#unreserve(transaction, held);
    this.#reservations.delete(transaction);
  }

  restore(id: string, expected: Doc | undefined, previous: Doc | undefined): void {
    const current = this.#committed.get(id);
    if (current !== expected) return;
    if (current && previous) this.#committed.replace(id, current, previous);
    else if (current) this.#committed.remove(id, current);
    else if (previous) this.#committed.insert(id, previous);
  }

  #find(filter: Filter, options: FindOptions): Doc[] {
    const { skip = 0, limit = 0 } = options;
    if (!Number.isInteger(skip) || skip < 0) throw new Error('skip must be a non-negative integer');
    if (!Number.isInteger(limit)) throw new Error('limit must be an integer');
    const predicate = compileFilter(filter);
    compileSort(options.sort);
    const project = compileProjection(options.projection);
    const transaction = this.#transactions.current();
    let page: Doc[];
    if (transaction?.writes.has(this)) {
      page = pageOf(this.#matching(filter, predicate, matchesNeeded(options), transaction), options);
    } else {
      this.#sweep();
      page = this.#committed.page(filter, predicate, options);
    }
    return page.map((doc) => copyOut(project(doc)));
  }

  /** Documents the transaction (or, without one, everyone) sees matching, in natural order, the first `atMost`. Not copies. */
  #matching(filter: Filter, predicate: Predicate, atMost: number, transaction: MemoryTransaction | undefined): Doc[] {
    this.#sweep();
    const overlay = transaction?.writes.get(this);
    if (!overlay) return this.#committed.matching(filter, predicate, atMost);
    if (atMost <= 0) return [];
    const now = Date.now();
    const committed = this.#committed;
    const version = (id: string): Doc | undefined => {
      if (!overlay.has(id)) return committed.get(id);
      const mine = overlay.get(id);
      return mine && this.#committed.live(mine, now) ? mine : undefined;
    };
    const single = (doc: Doc | undefined): Doc[] => (doc !== undefined && predicate(doc) ? [doc] : []);
    const id = idKeyOfFilter(filter);
    if (id !== undefined) return single(version(id));
    const owner = this.#committed.uniqueOwner(filter);
    if (owner !== undefined) {
      const reservation = this.#reserved.get(owner.index)?.get(owner.entry);
      if (reservation && reservation.transaction === transaction) return single(version(reservation.id));
      return single(owner.id === null ? undefined : version(owner.id));
    }
    const matches: Doc[] = [];
    // The transaction's versions of the documents the scan visits take their place; the others (new documents, and
    // on disk those whose committed version the scan's SQL left out) come after.
    const visited = new Set<string>();
    for (const [key, stored] of committed.scan(filter)) {
      let doc: Doc | undefined = stored;
      if (overlay.has(key)) {
        visited.add(key);
        doc = version(key);
      }
      if (doc === undefined || !predicate(doc)) continue;
      matches.push(doc);
      if (matches.length >= atMost) return matches;
    }
    for (const [key, mine] of overlay) {
      if (!mine || visited.has(key) || !committed.live(mine, now) || !predicate(mine)) continue;
      matches.push(mine);
      if (matches.length >= atMost) return matches;
    }
    return matches;
  }

  /** Plans, checks and applies one write operation (see the module comment). */
  #write<R>(plan: (transaction: MemoryTransaction | undefined) => { writes: Write[]; result: R }): Promise<R> {
    return this.#transactions.write((transaction, changes) => {
      this.#sweep();
      const { writes, result } = plan(transaction);
      for (const write of writes) this.#waitIfHeld(transaction, write);
      for (const write of writes) this.#apply(transaction, changes, write);
      return result;
    });
  }

  /** Throws MustWait when another transaction holds the document, or a unique key it needs in a way worth waiting for. */
  #waitIfHeld(transaction: MemoryTransaction | undefined, write: Write): void {
    const holder = this.#locks.get(write.id);
    if (holder && holder !== transaction) {
      // A document it changes or removes: see what it leaves. A new one it inserts: an upsert waits to find it, an
      // insert fails as a duplicate (below).
      if (write.kind !== 'insert' || this.#committed.has(write.id)) throw new MustWait(holder);
      return;
    }
    if (!write.after) return;
    const obstacle = this.#keyObstacle(transaction, write.id, write.after, write.kind === 'upsert');
    if (obstacle instanceof MemoryTransaction) throw new MustWait(obstacle);
  }

  #apply(transaction: MemoryTransaction | undefined, changes: CommittedChange[], write: Write): void {
    const { id, after } = write;
    // A new document outside a transaction, where the committed documents tell a taken id as they store it (on disk,
    // one statement rather than a lookup and then the write).
    const stored = !transaction && write.kind !== 'change' ? this.#committed.insertNew : undefined;
    if (write.kind !== 'change') {
      const holder = this.#locks.get(id);
      if ((holder && holder !== transaction) || (!stored && this.#exists(transaction, id)))
        throw new DuplicateKeyError(this.name, { _id: 1 });
    } else if (after === write.before) {
      return;
    }
    if (after) {
      const obstacle = this.#keyObstacle(transaction, id, after, false);
      if (obstacle)
        throw new DuplicateKeyError(this.name, {
          ...(obstacle instanceof MemoryTransaction ? {} : obstacle.spec.keys),
        });
    }
    if (transaction) {
      this.#stage(transaction, id, after);
      return;
    }
    // Outside a transaction what everyone sees is the committed version: the one a change found, none for a new one.
    const current = write.before;
    if (after && current) this.#committed.replace(id, current, after);
    else if (after && stored) {
      if (!stored.call(this.#committed, id, after)) throw new DuplicateKeyError(this.name, { _id: 1 });
    } else if (after) this.#committed.insert(id, after);
    else if (current) this.#committed.remove(id, current);
    else return;
    changes.push({
      collection: this,
      id,
      before: current,
      after: after ?? undefined,
      written: this.#committed.writesThrough,
    });
  }

  /** Whether the transaction (or everyone) sees a document `id` (without reading it from disk). */
  #exists(transaction: MemoryTransaction | undefined, id: string): boolean {
    const overlay = transaction?.writes.get(this);
    if (overlay?.has(id)) return overlay.get(id) !== null;
    return this.#committed.has(id);
  }

  /**
   * What keeps `transaction` from storing `doc` as `id` under the unique indexes: the index it would duplicate, another
   * transaction to wait for (one changing the document that holds the key, or, with `waitOnReserved`, one whose
   * uncommitted version holds it), or nothing.
   */
  #keyObstacle(
    transaction: MemoryTransaction | undefined,
    id: string,
    doc: Doc,
    waitOnReserved: boolean,
  ): MemoryIndex | MemoryTransaction | undefined {
    const overlay = transaction?.writes.get(this);
    for (const index of this.#committed.indexes.values()) {
      if (!index.owners) continue;
      const reserved = this.#reserved.get(index);
      for (const entry of indexEntries(doc, index.spec)) {
        const reservation = reserved?.get(entry);
        if (reservation && reservation.id !== id) {
          return reservation.transaction !== transaction && waitOnReserved ? reservation.transaction : index;
        }
        const owner = this.#committed.otherOwner(index, entry, id);
        // A document this transaction changed or removed: if its new version still holds the key, it reserved it.
        if (owner === undefined || overlay?.has(owner)) continue;
        const holder = this.#locks.get(owner);
        return holder && holder !== transaction ? holder : index;
      }
    }
    return undefined;
  }

  /** Puts a version in the transaction's overlay: the document is locked and its unique keys reserved. */
  #stage(transaction: MemoryTransaction, id: string, after: Doc | null): void {
    transaction.overlay(this).set(id, after);
    this.#locks.set(id, transaction);
    let mine = this.#reservations.get(transaction);
    if (!mine) {
      mine = new Map();
      this.#reservations.set(transaction, mine);
    }
    const previous = mine.get(id);
    if (previous) this.#unreserve(transaction, previous);
    if (!after) {
      mine.delete(id);
      return;
    }
    const held: Array<[Reserved, string]> = [];
    for (const index of this.#committed.indexes.values()) {
      if (!index.owners) continue;
      let reserved = this.#reserved.get(index);
      if (!reserved) {
        reserved = new Map();
        this.#reserved.set(index, reserved);
      }
      for (const entry of indexEntries(after, index.spec)) {
        reserved.set(entry, { transaction, id });
        held.push([reserved, entry]);
      }
    }
    mine.set(id, held);
  }

  #unreserve(transaction: MemoryTransaction, held: Array<[Reserved, string]>): void {
    for (const [reserved, entry] of held) {
      if (reserved.get(entry)?.transaction === transaction) reserved.delete(entry);
    }
  }

  #change(target: Doc, after: Doc): Write {
    return { id: idKey(target._id), after, kind: 'change', before: target };
  }

  #removal(target: Doc): Write {
    return { id: idKey(target._id), after: null, kind: 'change', before: target };
  }

  #upsert(doc: Doc): Write {
    return { id: idKey(doc._id), after: doc, kind: 'upsert' };
  }

  #prepareInsert(doc: Doc): Doc {
    if (!isPlainObject(doc)) throw new Error('a document must be a plain object');
    // The driver assigns a generated `_id` to the caller's object; mirror that so callers can read it.
    if (doc._id === undefined || doc._id === null) doc._id = newId();
    const prepared = withIdFirst(copyIn(doc));
    if (Array.isArray(prepared._id)) throw new Error("the '_id' value cannot be an array");
    return prepared;
  }

  /** The document after the update: `target` itself when nothing changed. */
  #updated(target: Doc, update: Update): Doc {
    const next = copyIn(target);
    applyUpdate(next, update, false);
    if (!valuesEqual(next._id, target._id)) throw immutableIdError();
    return valuesEqual(next, target) ? target : next;
  }

  #upserted(filter: Filter, update: Update): Doc {
    const doc = seedFromFilter(filter);
    const seededId = doc._id;
    applyUpdate(doc, update, true);
    if (seededId !== undefined && !valuesEqual(doc._id, seededId)) throw immutableIdError();
    doc._id ??= newId();
    if (Array.isArray(doc._id)) throw new Error("the '_id' value cannot be an array");
    return withIdFirst(doc);
  }

  #sweep(): void {
    const removed: CommittedChange[] = [];
    const written = this.#committed.writesThrough;
    this.#committed.sweep(Date.now(), (id, doc) =>
      removed.push({ collection: this, id, before: doc, after: undefined, written }),
    );
    if (removed.length > 0) this.#transactions.expired(removed);
  }
}
