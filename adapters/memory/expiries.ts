/**
 * When a collection's documents expire under its TTL indexes, earliest first: a binary min-heap of (time, document id)
 * entries, so that a sweep touches only what is due instead of every document. An entry names no document version:
 * it stands for whatever version of its document is stored when it comes up, if that version expires at its time.
 * A document removed, or given another expiry, leaves its entry behind; the entry is skipped when it comes up, and the
 * collection rebuilds the heap from its live documents once such leftovers outnumber them. Holding ids only, the heap
 * keeps no replaced version alive.
 *
 * The entries are two parallel arrays, the times in a Float64Array and the ids (the strings the collection keys its
 * documents by) in a plain array: 16 bytes an entry, where an object per entry took 56 with its boxed time.
 */
const INITIAL_CAPACITY = 64;

export class Expiries {
  #at = new Float64Array(INITIAL_CAPACITY);
  #ids: string[] = [];

  get size(): number {
    return this.#ids.length;
  }

  push(at: number, id: string): void {
    const i = this.#ids.length;
    if (i === this.#at.length) this.#resize(2 * i);
    this.#ids.push(id);
    this.#siftUp(at, id, i);
  }

  /** Takes out, earliest first, every entry due at `now`, and hands each to `visit`, which must not push. */
  takeDue(now: number, visit: (id: string, at: number) => void): void {
    const at = this.#at;
    const ids = this.#ids;
    while (ids.length > 0 && at[0]! <= now) {
      const topAt = at[0]!;
      const topId = ids[0]!;
      const lastId = ids.pop()!;
      if (ids.length > 0) this.#siftDown(at[ids.length]!, lastId, 0);
      visit(topId, topAt);
    }
    // A heap emptied by a long sweep gives its times' memory back.
    if (this.#at.length > INITIAL_CAPACITY && ids.length < this.#at.length / 4)
      this.#resize(Math.max(INITIAL_CAPACITY, 2 * ids.length));
  }

  /** Replaces every entry by these (the live documents' expiries: `ats[i]` for `ids[i]`), ordered in linear time. */
  rebuild(ats: number[], ids: string[]): void {
    this.#at = new Float64Array(Math.max(INITIAL_CAPACITY, ats.length));
    this.#at.set(ats);
    this.#ids = ids;
    for (let i = (ids.length >> 1) - 1; i >= 0; i -= 1) this.#siftDown(this.#at[i]!, ids[i]!, i);
  }

  #resize(capacity: number): void {
    const at = new Float64Array(capacity);
    at.set(this.#at.subarray(0, this.#ids.length));
    this.#at = at;
  }

  /** Puts the entry at `start` or above it, moving greater parents down. */
  #siftUp(entryAt: number, id: string, start: number): void {
    const at = this.#at;
    const ids = this.#ids;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[parent]! <= entryAt) break;
      at[i] = at[parent]!;
      ids[i] = ids[parent]!;
      i = parent;
    }
    at[i] = entryAt;
    ids[i] = id;
  }

  /** Puts the entry at `start` or below it, moving smaller children up. */
  #siftDown(entryAt: number, id: string, start: number): void {
    const at = this.#at;
    const ids = this.#ids;
    const size = ids.length;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && at[child + 1]! < at[child]!) child += 1;
      if (at[child]! >= entryAt) break;
      at[i] = at[child]!;
      ids[i] = ids[child]!;
      i = child;
    }
    at[i] = entryAt;
    ids[i] = id;
  }
}
