/**
 * The postings of a non-unique index of the in-memory store: every stored document's slot (its place in natural
 * order, see committed.ts), ordered as MongoDB orders the index's keys, field by field in each field's direction, and
 * documents with equal keys in natural order. A query finds the documents of one key, or of a range of keys, by
 * binary search, counts them without visiting them, and reads them in key order for a sort the index serves.
 *
 * An entry holds only the slot: its key is read from the document stored there, so the index costs a few bytes per
 * document. A document whose indexed field holds an array (or a dotted path that reaches several values) has no one
 * key: it is kept apart (`multikey`), every query takes it as a candidate, and no sort is served while any exists, as
 * the SQLite store's disk-resident collections do with their flagged rows.
 *
 * Slots sit in chunks of at most CHUNK_MAX, so that an insertion moves at most that many entries.
 */
import type { Doc, IndexSpec } from '../../lib/ports/documents.ts';
import { compareValues, lookup } from './values.ts';

const CHUNK_MAX = 512;

/** Where an entry lies against a key range, in index order: before it (< 0), inside (0) or after it (> 0). */
export type RangeTest = (key: readonly unknown[]) => number;

export class OrderedIndex {
  readonly name: string;
  readonly fields: readonly string[];
  readonly directions: readonly (1 | -1)[];
  /** Slots of documents without a single key (see the module comment). */
  readonly multikey = new Set<number>();
  readonly #docAt: (slot: number) => Doc;
  #chunks: number[][] = [];
  #size = 0;

  constructor(spec: IndexSpec & { name: string }, docAt: (slot: number) => Doc) {
    this.name = spec.name;
    this.fields = Object.keys(spec.keys);
    this.directions = Object.values(spec.keys);
    this.#docAt = docAt;
  }

  /** Entries in order (multikey documents excluded). */
  get size(): number {
    return this.#size;
  }

  /** The document's key, one value per field; undefined when some field reaches no single value. */
  keyOf(doc: Doc): unknown[] | undefined {
    const key: unknown[] = [];
    for (const field of this.fields) {
      if (!field.includes('.')) {
        const value = doc[field];
        if (Array.isArray(value)) return undefined;
        key.push(value);
        continue;
      }
      const values = lookup(doc, field);
      if (values.length !== 1 || Array.isArray(values[0])) return undefined;
      key.push(values[0]);
    }
    return key;
  }

  /** Index order of two keys. */
  compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
    for (let i = 0; i < a.length; i += 1) {
      const order = compareValues(a[i], b[i]) * this.directions[i]!;
      if (order !== 0) return order;
    }
    return 0;
  }

  add(slot: number, doc: Doc): void {
    const key = this.keyOf(doc);
    if (!key) {
      this.multikey.add(slot);
      return;
    }
    this.#size += 1;
    if (this.#chunks.length === 0) {
      this.#chunks.push([slot]);
      return;
    }
    let [chunkIndex, offset] = this.#seek(key, slot);
    // Past the last entry: the end of the last chunk.
    if (chunkIndex === this.#chunks.length)
      [chunkIndex, offset] = [chunkIndex - 1, this.#chunks[chunkIndex - 1]!.length];
    const chunk = this.#chunks[chunkIndex]!;
    chunk.splice(offset, 0, slot);
    if (chunk.length > CHUNK_MAX) this.#chunks.splice(chunkIndex + 1, 0, chunk.splice(CHUNK_MAX >> 1));
  }

  /** Removes the entry `doc` (the version stored at `slot`) made. */
  remove(slot: number, doc: Doc): void {
    if (this.multikey.delete(slot)) return;
    const key = this.keyOf(doc);
    if (!key) return;
    const [chunkIndex, offset] = this.#seek(key, slot);
    const chunk = this.#chunks[chunkIndex];
    if (chunk?.[offset] !== slot) throw new Error(`index ${this.name} lost the entry of slot ${slot}`);
    chunk.splice(offset, 1);
    this.#size -= 1;
    if (chunk.length === 0) this.#chunks.splice(chunkIndex, 1);
  }

  /** Rebuilds the entries from every stored document, ordered in one sort. */
  rebuild(docs: Iterable<[number, Doc]>): void {
    this.multikey.clear();
    const keyed: Array<{ slot: number; key: unknown[] }> = [];
    for (const [slot, doc] of docs) {
      const key = this.keyOf(doc);
      if (key) keyed.push({ slot, key });
      else this.multikey.add(slot);
    }
    keyed.sort((a, b) => this.compareKeys(a.key, b.key) || a.slot - b.slot);
    this.#chunks = [];
    for (let first = 0; first < keyed.length; first += CHUNK_MAX >> 1) {
      this.#chunks.push(keyed.slice(first, first + (CHUNK_MAX >> 1)).map((entry) => entry.slot));
    }
    this.#size = keyed.length;
  }

  /** Renumbers every slot by `renumber` (which keeps their order: natural order is kept when slots are compacted). */
  renumber(renumber: (slot: number) => number): void {
    for (const chunk of this.#chunks) for (let i = 0; i < chunk.length; i += 1) chunk[i] = renumber(chunk[i]!);
    const multikey = [...this.multikey].map(renumber);
    this.multikey.clear();
    for (const slot of multikey) this.multikey.add(slot);
  }

  /** The positions `[from, to)` of the entries inside a range (`test` is monotone along the index). */
  range(test: RangeTest): [number, number] {
    return [this.#firstWhere((key) => test(key) >= 0), this.#firstWhere((key) => test(key) > 0)];
  }

  /** The slots at positions `[from, to)`, in index order, or backwards. */
  *slots(from: number, to: number, backwards = false): Generator<number> {
    if (from >= to) return;
    if (!backwards) {
      let [chunkIndex, offset] = this.#locate(from);
      for (let position = from; position < to; chunkIndex += 1, offset = 0) {
        const chunk = this.#chunks[chunkIndex]!;
        for (; offset < chunk.length && position < to; offset += 1, position += 1) yield chunk[offset]!;
      }
      return;
    }
    let [chunkIndex, offset] = this.#locate(to - 1);
    for (let position = to - 1; position >= from; chunkIndex -= 1) {
      const chunk = this.#chunks[chunkIndex]!;
      for (; offset >= 0 && position >= from; offset -= 1, position -= 1) yield chunk[offset]!;
      offset = (this.#chunks[chunkIndex - 1]?.length ?? 0) - 1;
    }
  }

  /** The key of the entry at `position`. */
  keyAt(position: number): unknown[] {
    const [chunkIndex, offset] = this.#locate(position);
    return this.keyOf(this.#docAt(this.#chunks[chunkIndex]![offset]!))!;
  }

  /** The chunk and offset where (key, slot) is or would go. */
  #seek(key: readonly unknown[], slot: number): [number, number] {
    return this.#boundary((other) => (this.#compareTo(other, key) || other - slot) >= 0);
  }

  /** The index order of the entry of `slot` against `key`, read from the stored document without building its key. */
  #compareTo(slot: number, key: readonly unknown[]): number {
    const doc = this.#docAt(slot);
    const fields = this.fields;
    for (let i = 0; i < fields.length; i += 1) {
      const field = fields[i]!;
      const value = field.includes('.') ? lookup(doc, field)[0] : doc[field];
      const other = key[i];
      // Two numbers (not NaN), or two equal strings, the usual keys: their order without the general comparison.
      const order =
        (typeof value === 'number' && typeof other === 'number' && !Number.isNaN(value) && !Number.isNaN(other)
          ? value < other
            ? -1
            : value > other
              ? 1
              : 0
          : value === other
            ? 0
            : compareValues(value, other)) * this.directions[i]!;
      if (order !== 0) return order;
    }
    return 0;
  }

  /** The first position whose entry satisfies `after` (false for a prefix of the entries, true for the rest). */
  #firstWhere(after: (key: readonly unknown[], slot: number) => boolean): number {
    const [chunkIndex, offset] = this.#boundary((slot) => after(this.keyOf(this.#docAt(slot))!, slot));
    let position = offset;
    for (let i = 0; i < chunkIndex; i += 1) position += this.#chunks[i]!.length;
    return position;
  }

  /** The chunk and offset of the first entry satisfying `after`; the chunk count when none does. */
  #boundary(after: (slot: number) => boolean): [number, number] {
    const chunks = this.#chunks;
    // The first chunk whose last entry is past the boundary holds it.
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = chunks[middle]!;
      if (after(chunk[chunk.length - 1]!)) high = middle;
      else low = middle + 1;
    }
    const chunk = chunks[low];
    if (!chunk) return [chunks.length, 0];
    let from = 0;
    let to = chunk.length;
    while (from < to) {
      const middle = (from + to) >>> 1;
      if (after(chunk[middle]!)) to = middle;
      else from = middle + 1;
    }
    return [low, from];
  }

  /** The chunk and offset of a position. */
  #locate(position: number): [number, number] {
    let remaining = position;
    for (let i = 0; i < this.#chunks.length; i += 1) {
      const length = this.#chunks[i]!.length;
      if (remaining < length) return [i, remaining];
      remaining -= length;
    }
    return [this.#chunks.length, 0];
  }
}
