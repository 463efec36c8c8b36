/**
 * The committed documents of one embedded collection, with their unique-index entries and TTL expiries: in memory
 * here (CommittedDocuments), on disk for the SQLite store's disk-resident collections. Changes here are raw: whoever
 * calls them checked the constraints first (collection.ts), so each one only keeps the indexes in step. Stored
 * objects are never mutated: a change stores a new object.
 */
import type { Doc, Filter, FindOptions, IndexSpec } from '../../lib/ports/documents.ts';
import { Expiries } from './expiries.ts';
import { buildIndex, expiryOf, indexEntries, singleFieldEntry, type MemoryIndex } from './indexes.ts';
import { OrderedIndex } from './ordered-index.ts';
import { bestSource, exactCount, matchesEverything, planWalk, type Indexed, type Walk } from './planner.ts';
import { compileSort, isOperatorObject, type Predicate } from './query.ts';
import { SubstringIndex } from './substring-index.ts';
import { compareValues, idKey } from './values.ts';

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
  /**
   * Stores a new document unless a live one has its id, and says whether it did; where present, the collection asks
   * this instead of `has` then `insert` (outside transactions).
   */
  insertNew?(id: string, doc: Doc): boolean;
  replace(id: string, current: Doc, next: Doc): void;
  remove(id: string, doc: Doc): void;
  /** Stores several changes at once, calling `visit` for each that changed something (see CommittedDocuments). */
  applyAll(
    writes: ReadonlyMap<string, Doc | null>,
    visit: (id: string, before: Doc | undefined, after: Doc | undefined) => void,
  ): void;
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

/** Removed slots tolerated before they are compacted away: this many, and no fewer than the documents. */
const HOLES_KEPT = 1024;

/**
 * The committed documents in memory. Each document has a slot, its place in natural order: a new document takes the
 * next one, a replaced document keeps its own, a removed one leaves a hole until holes outnumber documents and the
 * slots are compacted (order kept). Indexes name documents by slot (ordered-index.ts, substring-index.ts).
 */
export class CommittedDocuments implements CommittedState, Indexed {
  readonly name: string;
  /** Slot → stored document (undefined: a hole). */
  readonly #slots: Array<Doc | undefined> = [];
  /** `idKey(_id)` → slot. */
  readonly #positions = new Map<string, number>();
  #holes = 0;
  readonly indexes = new Map<string, MemoryIndex>();
  /** The non-unique indexes' postings. */
  readonly ordered: OrderedIndex[] = [];
  /** Substring indexes, by field. */
  readonly substring = new Map<string, SubstringIndex>();
  /** When stored documents expire under the TTL indexes, so that a sweep visits only those due. */
  readonly #expiries = new Expiries();
  /** How many times a document was inserted, replaced or removed (expiry included). */
  changes = 0;
  /** Whether a TTL index exists, so that versions not yet committed must be tested for expiry. */
  #expiring = false;
  /** The field and delay (ms) of the TTL index, when there is exactly one, on a top-level field. */
  #ttl: { field: string; delayMs: number } | undefined;
  /** Stored documents whose TTL field holds no date (they never expire). */
  #undated = 0;
  /** When the last sweep ran: every document stored expires later (reads sweep first). */
  #sweptAt = Number.NEGATIVE_INFINITY;

  readonly writesThrough = false;

  constructor(name: string) {
    this.name = name;
  }

  /** Stored documents. */
  get size(): number {
    return this.#positions.size;
  }

  changeCount(): number {
    return this.changes;
  }

  get(id: string): Doc | undefined {
    const slot = this.#positions.get(id);
    return slot === undefined ? undefined : this.#slots[slot];
  }

  has(id: string): boolean {
    return this.#positions.has(id);
  }

  slotOf(id: string): number | undefined {
    return this.#positions.get(id);
  }

  /** Every stored document with its key, in natural order. */
  *entries(): Generator<[string, Doc]> {
    const slots = this.#slots;
    for (let slot = 0; slot < slots.length; slot += 1) {
      const doc = slots[slot];
      if (doc !== undefined) yield [idKey(doc._id), doc];
    }
  }

  scan(filter: Filter): Iterable<[string, Doc]> {
    const source = bestSource(this.#planned(filter), this);
    if (!source) return this.entries();
    return source.slots().map((slot): [string, Doc] => {
      const doc = this.#slots[slot]!;
      return [idKey(doc._id), doc];
    });
  }

  page(filter: Filter, predicate: Predicate, options: FindOptions): Doc[] {
    const sort = options.sort ?? {};
    if (Object.keys(sort).length > 0) {
      const planned = this.#planned(filter);
      const walk = planWalk(planned, sort, this);
      const source = walk && !walk.exact ? bestSource(planned, this) : undefined;
      // A walk visits at most its range; narrower candidates are cheaper to sort than a walk is to test.
      if (walk && (walk.exact || !source || source.size * 8 >= walk.to - walk.from))
        return this.#walkPage(walk, predicate, options);
    }
    return pageOf(this.matching(filter, predicate, matchesNeeded(options)), options);
  }

  count(filter: Filter, predicate: Predicate): number {
    const planned = this.#planned(filter);
    if (matchesEverything(planned)) return this.size;
    const exact = exactCount(planned, this);
    if (exact !== undefined) return exact;
    return this.matching(filter, predicate, Number.POSITIVE_INFINITY).length;
  }

  /** Adds an index over the stored documents (see `buildIndex`), unless it exists already. */
  createIndex(spec: IndexSpec): void {
    const index = buildIndex(this.name, spec, this.indexes, this.entries());
    if (!index) return;
    this.indexes.set(index.name, index);
    const { spec: normalized } = index;
    if (normalized.substring) {
      const substring = new SubstringIndex(index.name, Object.keys(normalized.keys)[0]!);
      substring.rebuild(this.#slotEntries());
      this.substring.set(substring.field, substring);
    } else if (!normalized.unique && !normalized.sparse && normalized.expireAfterSeconds === undefined) {
      const ordered = new OrderedIndex({ ...normalized, name: index.name }, (slot) => this.#slots[slot]!);
      ordered.rebuild(this.#slotEntries());
      this.ordered.push(ordered);
    }
    // Existing documents expire under a new TTL index too, and may already be due.
    if (normalized.expireAfterSeconds !== undefined) {
      this.#expiring = true;
      this.#rebuildExpiries();
      const ttl = [...this.indexes.values()].filter((each) => each.spec.expireAfterSeconds !== undefined);
      const [field] = Object.keys(ttl[0]!.spec.keys);
      this.#ttl =
        ttl.length === 1 && !field!.includes('.')
          ? { field: field!, delayMs: ttl[0]!.spec.expireAfterSeconds! * 1000 }
          : undefined;
      this.#undated = 0;
      if (this.#ttl) for (const doc of this.#slots) if (doc !== undefined && !this.#dated(doc)) this.#undated += 1;
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
      const doc = this.get(id);
      return doc !== undefined && predicate(doc) ? [doc] : [];
    }
    const owner = this.uniqueOwner(filter);
    if (owner !== undefined) {
      const doc = owner.id === null ? undefined : this.get(owner.id);
      return doc !== undefined && predicate(doc) ? [doc] : [];
    }
    const matches: Doc[] = [];
    const source = bestSource(this.#planned(filter), this);
    if (source) {
      for (const slot of source.slots()) {
        const doc = this.#slots[slot]!;
        if (!predicate(doc)) continue;
        matches.push(doc);
        if (matches.length >= atMost) break;
      }
      return matches;
    }
    for (const doc of this.#slots) {
      if (doc === undefined || !predicate(doc)) continue;
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
    this.#place(id, doc);
    this.changes += 1;
  }

  replace(id: string, current: Doc, next: Doc): void {
    const slot = this.#positions.get(id)!;
    this.#removeEntries(current, id, slot, next);
    this.#slots[slot] = next;
    this.#addEntries(next, id, slot, this.expiryOf(current), current);
    this.changes += 1;
  }

  remove(id: string, doc: Doc): void {
    const slot = this.#positions.get(id)!;
    this.#removeEntries(doc, id, slot);
    this.#vacate(id, slot);
    this.changes += 1;
    this.#compactIfSparse();
  }

  /**
   * Stores several changes at once: every entry the current versions hold is removed before the new versions add
   * theirs, so that documents swapping a unique key between them (checked as a whole) never collide half-way.
   */
  applyAll(
    writes: ReadonlyMap<string, Doc | null>,
    visit: (id: string, before: Doc | undefined, after: Doc | undefined) => void,
  ): void {
    const previous = new Map<string, Doc | undefined>();
    for (const id of writes.keys()) {
      const current = this.get(id);
      previous.set(id, current);
      if (current) this.#removeEntries(current, id, this.#positions.get(id)!);
    }
    for (const [id, next] of writes) {
      const current = previous.get(id);
      const slot = this.#positions.get(id);
      if (next && slot !== undefined) {
        this.#slots[slot] = next;
        this.#addEntries(next, id, slot, current && this.expiryOf(current));
      } else if (next) {
        this.#place(id, next);
      } else if (slot !== undefined) {
        this.#vacate(id, slot);
      }
      if (current === undefined && next === null) continue;
      this.changes += 1;
      visit(id, current, next ?? undefined);
    }
    this.#compactIfSparse();
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
    this.#sweptAt = now;
    this.#expiries.takeDue(now, (id, at) => {
      // An entry whose document is gone, or now expires at another time (with an entry of its own), is stale.
      const doc = this.get(id);
      if (!doc || this.expiryOf(doc) !== at) return;
      this.remove(id, doc);
      removed(id, doc);
    });
  }

  /** One sorted page read along an index (see `planWalk`): documents equal on the keys it serves are sorted together. */
  #walkPage(walk: Walk, predicate: Predicate, options: FindOptions): Doc[] {
    const { index, from, to, backwards, fixed, served, exact } = walk;
    const { skip = 0, limit = 0 } = options;
    const wanted = limit === 0 ? Number.POSITIVE_INFINITY : Math.abs(limit);
    const sort = compileSort(options.sort);
    const servedKey = (slot: number) => index.keyOf(this.#slots[slot]!)!.slice(fixed, fixed + served);
    const same = (a: unknown[], b: unknown[]) => a.every((value, i) => compareValues(value, b[i]) === 0);
    let [start, end] = [from, to];
    let toSkip = skip;
    if (exact && skip > 0) {
      // Every entry matches: go straight to the group of equal served keys the page starts in.
      if (skip >= to - from) return [];
      const at = backwards ? to - 1 - skip : from + skip;
      const key = index.keyAt(at);
      const [groupFrom, groupTo] = index.range((other) => {
        for (let i = fixed; i < fixed + served; i += 1) {
          const order = compareValues(other[i], key[i]) * index.directions[i]!;
          if (order !== 0) return order;
        }
        return 0;
      });
      const [first, last] = [Math.max(from, groupFrom), Math.min(to, groupTo)];
      if (backwards) {
        end = last;
        toSkip = last - 1 - at;
      } else {
        start = first;
        toSkip = at - first;
      }
    }
    const page: Doc[] = [];
    let group: number[] = [];
    let groupKey: unknown[] | undefined;
    const flush = () => {
      // The index orders a group by its later fields, or backwards: the sort keeps ties in natural order, slot order.
      group.sort((a, b) => a - b);
      for (const doc of sort(group.map((slot) => this.#slots[slot]!))) {
        if (toSkip > 0) {
          toSkip -= 1;
          continue;
        }
        page.push(doc);
        if (page.length >= wanted) return;
      }
    };
    for (const slot of index.slots(start, end, backwards)) {
      const key = servedKey(slot);
      if (groupKey && !same(key, groupKey)) {
        flush();
        if (page.length >= wanted) return page;
        group = [];
      }
      groupKey = key;
      if (exact || predicate(this.#slots[slot]!)) group.push(slot);
    }
    flush();
    return page;
  }

  /** Every stored document with its slot, in natural order. */
  *#slotEntries(): Generator<[number, Doc]> {
    const slots = this.#slots;
    for (let slot = 0; slot < slots.length; slot += 1) {
      const doc = slots[slot];
      if (doc !== undefined) yield [slot, doc];
    }
  }

  /** Stores a new document in the next slot. */
  #place(id: string, doc: Doc): void {
    const slot = this.#slots.length;
    this.#slots.push(doc);
    this.#positions.set(id, slot);
    this.#addEntries(doc, id, slot);
  }

  #vacate(id: string, slot: number): void {
    this.#slots[slot] = undefined;
    this.#positions.delete(id);
    this.#holes += 1;
  }

  /**
   * `previousExpiry`: when the version this one replaces expires, whose heap entry then stands for this one too.
   * `replaced`: that version, whose postings stay where this one keys alike.
   */
  #addEntries(doc: Doc, id: string, slot: number, previousExpiry?: number, replaced?: Doc): void {
    for (const index of this.indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) index.owners.set(entry, id);
    }
    for (const index of this.ordered) if (!replaced || !this.#keysAlike(index, replaced, doc)) index.add(slot, doc);
    for (const index of this.substring.values()) if (!replaced || !index.same(replaced, doc)) index.add(slot, doc);
    if (this.#ttl && !this.#dated(doc)) this.#undated += 1;
    const expiry = this.expiryOf(doc);
    if (expiry === undefined || expiry === previousExpiry) return;
    this.#expiries.push(expiry, id);
    // Documents removed, or given another expiry, before they expired leave entries behind: drop them once they are
    // the many.
    if (this.#expiries.size > 2 * this.size + 1024) this.#rebuildExpiries();
  }

  /** `next`: the version about to replace `doc`, whose postings stay where it keys alike. */
  #removeEntries(doc: Doc, id: string, slot: number, next?: Doc): void {
    for (const index of this.indexes.values()) {
      if (!index.owners) continue;
      for (const entry of indexEntries(doc, index.spec)) {
        if (index.owners.get(entry) === id) index.owners.delete(entry);
      }
    }
    for (const index of this.ordered) if (!next || !this.#keysAlike(index, doc, next)) index.remove(slot, doc);
    for (const index of this.substring.values()) if (!next || !index.same(doc, next)) index.remove(slot, doc);
    if (this.#ttl && !this.#dated(doc)) this.#undated -= 1;
  }

  #dated(doc: Doc): boolean {
    return doc[this.#ttl!.field] instanceof Date;
  }

  /**
   * The filter an index plan may go by: without a lower bound on the TTL field that every stored document meets. When
   * every document holds a date there, each one stored expires after the last sweep, so its date is later than any
   * date at least the TTL's delay before that sweep: `{ expiresAt: { $gt: new Date() } }`, which readers add for
   * MongoDB's late TTL monitor, then says nothing here, and an index on the other fields alone counts and pages the
   * matches. The compiled filter still tests every condition wherever the plan does not answer alone.
   */
  #planned(filter: Filter): Filter {
    const ttl = this.#ttl;
    if (!ttl || this.#undated > 0 || !Object.hasOwn(filter, ttl.field)) return filter;
    const condition = filter[ttl.field];
    if (!isOperatorObject(condition)) return filter;
    const bounds = Object.entries(condition);
    const latest = this.#sweptAt - ttl.delayMs;
    const implied =
      bounds.length > 0 &&
      bounds.every(
        ([operator, operand]) =>
          (operator === '$gt' || operator === '$gte') && operand instanceof Date && operand.getTime() <= latest,
      );
    if (!implied) return filter;
    const { [ttl.field]: _implied, ...rest } = filter;
    return rest;
  }

  /** Whether two versions of a document hold the same single key of an index (its entry then stays as it is). */
  #keysAlike(index: OrderedIndex, a: Doc, b: Doc): boolean {
    const [x, y] = [index.keyOf(a), index.keyOf(b)];
    // Keys the index orders alike keep the entry in its place.
    return (
      x !== undefined && y !== undefined && x.every((value, i) => value === y[i] || compareValues(value, y[i]) === 0)
    );
  }

  /** Compacts the slots once holes outnumber documents, keeping their order (indexes are renumbered alike). */
  #compactIfSparse(): void {
    if (this.#holes <= HOLES_KEPT || this.#holes <= this.size) return;
    const renumbered = new Int32Array(this.#slots.length);
    let next = 0;
    for (let slot = 0; slot < this.#slots.length; slot += 1) {
      const doc = this.#slots[slot];
      if (doc === undefined) continue;
      renumbered[slot] = next;
      this.#slots[next] = doc;
      this.#positions.set(idKey(doc._id), next);
      next += 1;
    }
    this.#slots.length = next;
    this.#holes = 0;
    const renumber = (slot: number) => renumbered[slot]!;
    for (const index of this.ordered) index.renumber(renumber);
    for (const index of this.substring.values()) index.renumber(renumber);
  }

  #rebuildExpiries(): void {
    const ats: number[] = [];
    const ids: string[] = [];
    for (const [id, doc] of this.entries()) {
      const at = this.expiryOf(doc);
      if (at === undefined) continue;
      ats.push(at);
      ids.push(id);
    }
    this.#expiries.rebuild(ats, ids);
  }
}
