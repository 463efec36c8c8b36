/**
 * The committed documents of one embedded collection, with their unique-index entries and TTL expiries: in memory
 * here (CommittedDocuments), on disk for the SQLite store's disk-resident collections. Changes here are raw: whoever
 * calls them checked the constraints first (collection.ts), so each one only keeps the indexes in step. Stored
 * objects are never mutated: a change stores a new object.
 */
import type { Doc, Filter, FindOptions, IndexSpec } from '../../lib/ports/documents.ts';
import { Expiries } from './expiries.ts';
import { buildIndex, expiryOf, indexEntries, singleFieldEntry, type MemoryIndex } from './indexes.ts';
import { compileSort, isOperatorObject, type Predicate } from './query.ts';
import { idKey } from './values.ts';

/** A filter's `_id` when it names one document by equality: its key, else undefined. */
export function idKeyOfFilter(filter: Filter): string | undefined {
  const id = filter._id;
  const byId = id !== undefined && !Array.isArray(id) && !(id instanceof RegExp) && !isOperatorObject(id);
  return byId ? idKey(id) : undefined;
}

/** Where a unique single-field index says the document holding a filter's value is (see `uniqueOwner`). */
export interface UniqueOwner {
  index: MemoryIndex;
  entry: string;
  id: string | null;
}

/** What a collection needs of its committed documents, wherever they are kept. */
export interface CommittedState {
  /** Every index; the unique ones carry their entries (`owners`). */
  readonly indexes: ReadonlyMap<string, MemoryIndex>;
  /** Changes are written to durable storage as they are made (a disk-resident collection): nothing to write after. */
  readonly writesThrough: boolean;
  /** How many times a document was inserted, replaced or removed (expiry included); undefined when not counted exactly. */
  changeCount(): number | undefined;
  get(id: string): Doc | undefined;
  has(id: string): boolean;
  /** Committed documents in natural order, every one `filter` may match (and maybe others). */
  scan(filter: Filter): Iterable<[string, Doc]>;
  /** Committed documents matching, in natural order, the first `atMost` of them. Not copies. */
  matching(filter: Filter, predicate: Predicate, atMost: number): Doc[];
  /** One page of the committed documents matching, sorted (`skip`, `limit` as validated by the caller). Not copies. */
  page(filter: Filter, predicate: Predicate, options: FindOptions): Doc[];
  count(filter: Filter, predicate: Predicate): number;
  /**
   * The one stored document a unique single-field index names for the filter's string on that field (a session's
   * uid, a user's email): `id` null when it names none; undefined when no such index serves the filter. The filter's
   * other conditions are still to be tested.
   */
  uniqueOwner(filter: Filter): UniqueOwner | undefined;
  /** The stored document holding `entry` in a unique index, other than `id`; undefined when none. */
  otherOwner(index: MemoryIndex, entry: string, id: string): string | undefined;
  insert(id: string, doc: Doc): void;
  replace(id: string, current: Doc, next: Doc): void;
  remove(id: string, doc: Doc): void;
  /** Stores several changes at once, calling `visit` for each that changed something (see CommittedDocuments). */
  applyAll(writes: ReadonlyMap<string, Doc | null>, visit: (id: string, before: Doc | undefined, after: Doc | undefined) => void): void;
  /** Whether `doc` (a version not yet committed) has not expired at `now`. */
  live(doc: Doc, now: number): boolean;
  /** Removes the stored documents due to expire by `now`, handing each to `removed`. */
  sweep(now: number, removed: (id: string, doc: Doc) => void): void;
  createIndex(spec: IndexSpec): void;
}

/** One page of `docs` (already filtered, in natural order): sorted, then cut as MongoDB cuts it. */
export function pageOf(docs: Doc[], options: FindOptions): Doc[] {
  const { skip = 0, limit = 0 } = options;
  // As in MongoDB, limit 0 means no limit and a negative limit means its absolute value.
  const end = limit === 0 ? undefined : skip + Math.abs(limit);
  return compileSort(options.sort)(docs, end).slice(skip, end);
}

/** How many matches a page of `options` needs from a scan in natural order: all of them, unless there is no sort. */
export function matchesNeeded(options: FindOptions): number {
  const { skip = 0, limit = 0 } = options;
  const unsorted = options.sort === undefined || Object.keys(options.sort).length === 0;
  return unsorted && limit !== 0 ? skip + Math.abs(limit) : Number.POSITIVE_INFINITY;
}

export class CommittedDocuments implements CommittedState {
  readonly name: string;
  /** `idKey(_id)` → stored document, in natural (insertion) order. */
  readonly docs = new Map<string, Doc>();
  readonly indexes = new Map<string, MemoryIndex>();
  /** When stored documents expire under the TTL indexes, so that a sweep visits only those due. */
  readonly #expiries = new Expiries();
  /** How many times a document was inserted, replaced or removed (expiry included). */
  changes = 0;
  /** Whether a TTL index exists, so that versions not yet committed must be tested for expiry. */
  #expiring = false;

  readonly writesThrough = false;

  constructor(name: string) {
    this.name = name;
  }

  changeCount(): number {
    return this.changes;
  }

  get(id: string): Doc | undefined {
    return this.docs.get(id);
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  scan(): Iterable<[string, Doc]> {
    return this.docs;
  }

  page(filter: Filter, predicate: Predicate, options: FindOptions): Doc[] {
    return pageOf(this.matching(filter, predicate, matchesNeeded(options)), options);
  }

  count(filter: Filter, predicate: Predicate): number {
    return this.matching(filter, predicate, Number.POSITIVE_INFINITY).length;
  }

  /** Adds an index over the stored documents (see `buildIndex`), unless it exists already. */
  createIndex(spec: IndexSpec): void {
    const index = buildIndex(this.name, spec, this.indexes, this.docs);
    if (!index) return;
    this.indexes.set(index.name, index);
    // Existing documents expire under a new TTL index too, and may already be due.
    if (index.spec.expireAfterSeconds !== undefined) {
      this.#expiring = true;
      this.#rebuildExpiries();
    }
  }

  uniqueOwner(filter: Filter): UniqueOwner | undefined {
    for (const index of this.indexes.values()) {
      const { owners, uniqueField } = index;
      if (!owners || uniqueField === null || !Object.hasOwn(filter, uniqueField)) continue;
      const value = filter[uniqueField];
      // A string matches the field equal to it or an array holding it, both indexed under it; nothing else is.
      if (typeof value !== 'string') continue;
      const entry = singleFieldEntry(value);
      return { index, entry, id: owners.get(entry) ?? null };
    }
    return undefined;
  }

  matching(filter: Filter, predicate: Predicate, atMost: number): Doc[] {
    if (atMost <= 0) return [];
    const id = idKeyOfFilter(filter);
    if (id !== undefined) {
      const doc = this.docs.get(id);
      return doc !== undefined && predicate(doc) ? [doc] : [];
    }
    const owner = this.uniqueOwner(filter);
    if (owner !== undefined) {
      const doc = owner.id === null ? undefined : this.docs.get(owner.id);
      return doc !== undefined && predicate(doc) ? [doc] : [];
    }
    const matches: Doc[] = [];
    for (const doc of this.docs.values()) {
      if (!predicate(doc)) continue;
      matches.push(doc);
      if (matches.length >= atMost) break;
    }
    return matches;
  }

  otherOwner(index: MemoryIndex, entry: string, id: string): string | undefined {
    const owner = index.owners?.get(entry);
    return owner === undefined || owner === id ? undefined : owner;
  }

  insert(id: string, doc: Doc): void {
    this.#addEntries(doc, id);
    this.docs.set(id, doc);
    this.changes += 1;
  }

  replace(id: string, current: Doc, next: Doc): void {
    this.#removeEntries(current, id);
    this.#addEntries(next, id, this.expiryOf(current));
    this.docs.set(id, next);
    this.changes += 1;
  }

  remove(id: string, doc: Doc): void {
    this.#removeEntries(doc, id);
    this.docs.delete(id);
    this.changes += 1;
  }

  /**
   * Stores several changes at once: every entry the current versions hold is removed before the new versions add
   * theirs, so that documents swapping a unique key between them (checked as a whole) never collide half-way.
   */
  applyAll(writes: ReadonlyMap<string, Doc | null>, visit: (id: string, before: Doc | undefined, after: Doc | undefined) => void): void {
    const previous = new Map<string, Doc | undefined>();
    for (const id of writes.keys()) {
      const current = this.docs.get(id);
      previous.set(id, current);
      if (current) this.#removeEntries(current, id);
    }
    for (const [id, next] of writes) {
      const current = previous.get(id);
      if (next) {
        this.#addEntries(next, id, current && this.expiryOf(current));
        this.docs.set(id, next);
      } else {
        this.docs.delete(id);
      }
      if (current === undefined && next === null) continue;
      this.changes += 1;
      visit(id, current, next ?? undefined);
    }
  }

  expiryOf(doc: Doc): number | undefined {
    let earliest: number | undefined;
    for (const index of this.indexes.values()) {
      const expiry = expiryOf(doc, index.spec);
      if (expiry !== undefined && (earliest === undefined || expiry < earliest)) earliest = expiry;
    }
    return earliest;
  }

  live(doc: Doc, now: number): boolean {
    if (!this.#expiring) return true;
    const expiry = this.expiryOf(doc);
    return expiry === undefined || expiry > now;
  }

  sweep(now: number, removed: (id: string, doc: Doc) => void): void {
    this.#expiries.takeDue(now, (id, at) => {
      // An entry whose document is gone, or now expires at another time (with an entry of its own), is stale.
      const doc = this.docs.get(id);
      if (!doc || this.expiryOf(doc) !== at) return;
      this.remove(id, doc);
      removed(id, doc);
    });
  }

  /** `previousExpiry`: when the version this one replaces expires, whose heap entry then stands for this one too. */
  #addEntries(doc: Doc, id: string, previousExpiry?: number): void {
    for (const index of this.indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) index.owners.set(entry, id);
    }
    const expiry = this.expiryOf(doc);
    if (expiry === undefined || expiry === previousExpiry) return;
    this.#expiries.push(expiry, id);
    // Documents removed, or given another expiry, before they expired leave entries behind: drop them once they are
    // the many.
    if (this.#expiries.size > 2 * this.docs.size + 1024) this.#rebuildExpiries();
  }

  #removeEntries(doc: Doc, id: string): void {
    for (const index of this.indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) {
        if (index.owners.get(entry) === id) index.owners.delete(entry);
      }
    }
  }

  #rebuildExpiries(): void {
    const ats: number[] = [];
    const ids: string[] = [];
    for (const [id, doc] of this.docs) {
      const at = this.expiryOf(doc);
      if (at === undefined) continue;
      ats.push(at);
      ids.push(id);
    }
    this.#expiries.rebuild(ats, ids);
  }
}
