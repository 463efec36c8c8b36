/**
 * One collection of the in-memory document store: MongoDB's semantics for filters, update operators, unique
 * and TTL indexes (query.ts, update.ts, indexes.ts). Every operation runs synchronously inside its promise,
 * so each one is atomic; expired TTL documents are swept lazily at the start of each operation, without timers.
 * Every change of a stored document is reported to the store's transactions (transactions.ts).
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
import { Expiries } from './expiries.ts';
import { buildIndex, expiryOf, indexEntries, singleFieldEntry, type MemoryIndex } from './indexes.ts';
import { compileFilter, compileProjection, compileSort, isOperatorObject } from './query.ts';
import type { MemoryTransactions, Restorable } from './transactions.ts';
import { applyUpdate, seedFromFilter, validateUpdate } from './update.ts';
import { copyIn, idKey, copyOut, immutableIdError, isPlainObject, newId, valuesEqual, withIdFirst } from './values.ts';

export class MemoryCollection implements DocumentCollection<Doc>, Restorable {
  readonly name: string;
  readonly #transactions: MemoryTransactions;
  /** `idKey(_id)` → stored document, in natural (insertion) order. */
  readonly #docs = new Map<string, Doc>();
  readonly #indexes = new Map<string, MemoryIndex>();
  /** When stored documents expire under the TTL indexes, so that a sweep visits only those due. */
  readonly #expiries = new Expiries();
  /** How many times a document was inserted, replaced or removed (expiry included). */
  #changes = 0;

  constructor(name: string, transactions: MemoryTransactions) {
    this.name = name;
    this.#transactions = transactions;
  }

  restore(id: string, expected: Doc | undefined, previous: Doc | undefined): void {
    const current = this.#docs.get(id);
    if (current !== expected) return;
    try {
      if (current && previous) this.#replace(current, previous);
      else if (current) this.#remove(current);
      else if (previous) this.#insert(previous);
    } catch {
      // Someone outside the transaction took a unique key meanwhile: their document stands.
    }
  }

  /** Changes so far; documents due to expire are removed first, so their expiry counts as soon as it is due. */
  changeCount(): number {
    this.#sweepExpired();
    return this.#changes;
  }

  async insertOne(doc: Doc): Promise<void> {
    this.#sweepExpired();
    this.#insert(this.#prepareInsert(doc));
  }

  async insertMany(docs: Doc[]): Promise<void> {
    this.#sweepExpired();
    // Like the driver: ids are assigned up front, then documents go in order until the first failure.
    const prepared = docs.map((doc) => this.#prepareInsert(doc));
    for (const doc of prepared) this.#insert(doc);
  }

  async findOne(filter: Filter, options: Omit<FindOptions, 'limit' | 'skip'> = {}): Promise<Doc | null> {
    return this.#find(filter, { ...options, limit: 1 })[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.#find(filter, options);
  }

  async countDocuments(filter: Filter): Promise<number> {
    return this.#matching(filter).length;
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    validateUpdate(update);
    const target = this.#matching(filter, 1)[0];
    if (target) {
      const modified = this.#applyUpdate(target, update) !== target;
      return { matchedCount: 1, modifiedCount: modified ? 1 : 0, upsertedId: null };
    }
    if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: null };
    const inserted = this.#upsert(filter, update);
    return { matchedCount: 0, modifiedCount: 0, upsertedId: copyOut(inserted._id) };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    validateUpdate(update);
    const targets = this.#matching(filter);
    let modifiedCount = 0;
    for (const target of targets) {
      if (this.#applyUpdate(target, update) !== target) modifiedCount++;
    }
    return { matchedCount: targets.length, modifiedCount, upsertedId: null };
  }

  async replaceOne(filter: Filter, doc: Doc, options: UpdateOptions = {}): Promise<UpdateResult> {
    if (!isPlainObject(doc) || Object.keys(doc).some((key) => key.startsWith('$'))) {
      throw new Error('replacement document must not contain update operators');
    }
    const target = this.#matching(filter, 1)[0];
    if (target) {
      const next = copyIn(doc);
      if (next._id !== undefined && !valuesEqual(next._id, target._id)) throw immutableIdError();
      const replacement = withIdFirst({ ...next, _id: target._id });
      if (valuesEqual(replacement, target)) return { matchedCount: 1, modifiedCount: 0, upsertedId: null };
      this.#replace(target, replacement);
      return { matchedCount: 1, modifiedCount: 1, upsertedId: null };
    }
    if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: null };
    // A replacement upsert takes only `_id` from the filter, never the other equality fields.
    const inserted = copyIn(doc);
    inserted._id ??= seedFromFilter(filter)._id ?? newId();
    this.#insert(withIdFirst(inserted));
    return { matchedCount: 0, modifiedCount: 0, upsertedId: copyOut(inserted._id) };
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<Doc | null> {
    validateUpdate(update);
    const project = compileProjection(options.projection);
    const after = options.returnDocument === 'after';
    const target = compileSort(options.sort)(this.#matching(filter), 1)[0];
    let result: Doc | null;
    if (target) {
      const updated = this.#applyUpdate(target, update);
      result = after ? updated : target;
    } else {
      const inserted = options.upsert ? this.#upsert(filter, update) : null;
      result = after ? inserted : null;
    }
    return result && copyOut(project(result));
  }

  async findOneAndDelete(filter: Filter): Promise<Doc | null> {
    const target = this.#matching(filter, 1)[0];
    if (!target) return null;
    this.#remove(target);
    return copyOut(target);
  }

  async deleteOne(filter: Filter): Promise<number> {
    const target = this.#matching(filter, 1)[0];
    if (!target) return 0;
    this.#remove(target);
    return 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const targets = this.#matching(filter);
    for (const target of targets) this.#remove(target);
    return targets.length;
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    this.#sweepExpired();
    const index = buildIndex(this.name, spec, this.#indexes, this.#docs);
    if (!index) return;
    this.#indexes.set(index.name, index);
    // Existing documents expire under a new TTL index too, and may already be due.
    if (index.spec.expireAfterSeconds !== undefined) this.#rebuildExpiries();
  }

  #find(filter: Filter, options: FindOptions): Doc[] {
    const { skip = 0, limit = 0 } = options;
    if (!Number.isInteger(skip) || skip < 0) throw new Error('skip must be a non-negative integer');
    if (!Number.isInteger(limit)) throw new Error('limit must be an integer');
    const sort = compileSort(options.sort);
    const project = compileProjection(options.projection);
    // Without a sort the first matches in natural order are the page: the scan stops once it has them.
    const enough = options.sort === undefined || Object.keys(options.sort).length === 0
      ? (limit === 0 ? undefined : skip + Math.abs(limit))
      : undefined;
    // As in MongoDB, limit 0 means no limit and a negative limit means its absolute value.
    const end = limit === 0 ? undefined : skip + Math.abs(limit);
    const page = sort(this.#matching(filter, enough), end).slice(skip, end);
    return page.map((doc) => copyOut(project(doc)));
  }

  /** Live (unexpired) stored documents matching the filter, in natural order, the first `atMost` of them. Not copies. */
  #matching(filter: Filter, atMost = Number.POSITIVE_INFINITY): Doc[] {
    const predicate = compileFilter(filter);
    this.#sweepExpired();
    const id = filter._id;
    const byId = id !== undefined && !Array.isArray(id) && !(id instanceof RegExp) && !isOperatorObject(id);
    if (byId) {
      const doc = this.#docs.get(idKey(id));
      return doc !== undefined && atMost > 0 && predicate(doc) ? [doc] : [];
    }
    const owner = this.#uniqueOwner(filter);
    if (owner !== undefined) return owner !== null && atMost > 0 && predicate(owner) ? [owner] : [];
    const matches: Doc[] = [];
    if (atMost <= 0) return matches;
    for (const doc of this.#docs.values()) {
      if (!predicate(doc)) continue;
      matches.push(doc);
      if (matches.length >= atMost) break;
    }
    return matches;
  }

  /**
   * The one document a unique single-field index names for the filter's string on that field (a session's uid, a
   * user's email), null when it names none, undefined when no such index serves the filter. The filter's other
   * conditions are still to be tested.
   */
  #uniqueOwner(filter: Filter): Doc | null | undefined {
    for (const { owners, uniqueField } of this.#indexes.values()) {
      if (!owners || uniqueField === null || !Object.hasOwn(filter, uniqueField)) continue;
      const value = filter[uniqueField];
      // A string matches the field equal to it or an array holding it, both indexed under it; nothing else is.
      if (typeof value !== 'string') continue;
      const id = owners.get(singleFieldEntry(value));
      return id === undefined ? null : this.#docs.get(id) ?? null;
    }
    return undefined;
  }

  #prepareInsert(doc: Doc): Doc {
    if (!isPlainObject(doc)) throw new Error('a document must be a plain object');
    // The driver assigns a generated `_id` to the caller's object; mirror that so callers can read it.
    if (doc._id === undefined || doc._id === null) doc._id = newId();
    return withIdFirst(copyIn(doc));
  }

  #checkUnique(doc: Doc, ownId: string | null): void {
    for (const index of this.#indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) {
        const owner = index.owners.get(entry);
        if (owner !== undefined && owner !== ownId) throw new DuplicateKeyError(this.name, { ...index.spec.keys });
      }
    }
  }

  /** `previousExpiry`: when the version this one replaces expires, whose heap entry then stands for this one too. */
  #addEntries(doc: Doc, id: string, previousExpiry?: number): void {
    for (const index of this.#indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) index.owners.set(entry, id);
    }
    const expiry = this.#expiryOf(doc);
    if (expiry === undefined || expiry === previousExpiry) return;
    this.#expiries.push(expiry, id);
    // Documents removed, or given another expiry, before they expired leave entries behind: drop them once they are
    // the many.
    if (this.#expiries.size > 2 * this.#docs.size + 1024) this.#rebuildExpiries();
  }

  #removeEntries(doc: Doc, id: string): void {
    for (const index of this.#indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) {
        if (index.owners.get(entry) === id) index.owners.delete(entry);
      }
    }
  }

  /** Checks every constraint before changing anything, so a failed write leaves the collection as it was. */
  #insert(doc: Doc): void {
    if (Array.isArray(doc._id)) throw new Error("the '_id' value cannot be an array");
    const id = idKey(doc._id);
    if (this.#docs.has(id)) throw new DuplicateKeyError(this.name, { _id: 1 });
    this.#checkUnique(doc, null);
    this.#addEntries(doc, id);
    this.#docs.set(id, doc);
    this.#changes += 1;
    this.#transactions.record(this, id, undefined, doc);
  }

  /** Replaces a stored document by a new object with the same `_id` (stored objects are never mutated). */
  #replace(current: Doc, next: Doc): void {
    const id = idKey(current._id);
    this.#checkUnique(next, id);
    this.#removeEntries(current, id);
    this.#addEntries(next, id, this.#expiryOf(current));
    this.#docs.set(id, next);
    this.#changes += 1;
    this.#transactions.record(this, id, current, next);
  }

  #remove(doc: Doc, expired = false): void {
    const id = idKey(doc._id);
    this.#removeEntries(doc, id);
    this.#docs.delete(id);
    this.#changes += 1;
    if (!expired) this.#transactions.record(this, id, doc, undefined);
  }

  /** Returns the stored document after the update: `target` itself when nothing changed. */
  #applyUpdate(target: Doc, update: Update): Doc {
    const next = copyIn(target);
    applyUpdate(next, update, false);
    if (!valuesEqual(next._id, target._id)) throw immutableIdError();
    if (valuesEqual(next, target)) return target;
    this.#replace(target, next);
    return next;
  }

  #upsert(filter: Filter, update: Update): Doc {
    const doc = seedFromFilter(filter);
    const seededId = doc._id;
    applyUpdate(doc, update, true);
    if (seededId !== undefined && !valuesEqual(doc._id, seededId)) throw immutableIdError();
    doc._id ??= newId();
    const inserted = withIdFirst(doc);
    this.#insert(inserted);
    return inserted;
  }

  #expiryOf(doc: Doc): number | undefined {
    let earliest: number | undefined;
    for (const index of this.#indexes.values()) {
      const expiry = expiryOf(doc, index.spec);
      if (expiry !== undefined && (earliest === undefined || expiry < earliest)) earliest = expiry;
    }
    return earliest;
  }

  #sweepExpired(): void {
    this.#expiries.takeDue(Date.now(), (id, at) => {
      // An entry whose document is gone, or now expires at another time (with an entry of its own), is stale.
      const doc = this.#docs.get(id);
      if (doc && this.#expiryOf(doc) === at) this.#remove(doc, true);
    });
  }

  #rebuildExpiries(): void {
    const ats: number[] = [];
    const ids: string[] = [];
    for (const [id, doc] of this.#docs) {
      const at = this.#expiryOf(doc);
      if (at === undefined) continue;
      ats.push(at);
      ids.push(id);
    }
    this.#expiries.rebuild(ats, ids);
  }
}
