/**
 * When a collection's documents expire under its TTL indexes, earliest first: a binary min-heap of (time, document id)
 * entries, so that a sweep touches only what is due instead of every document. An entry names no document version:
 * it stands for whatever version of its document is stored when it comes up, if that version expires at its time.
 * A document removed, or given another expiry, leaves its entry behind; the entry is skipped when it comes up, and the
 * collection rebuilds the heap from its live documents once such leftovers outnumber them. Holding ids only, the heap
 * keeps no replaced version alive.
 */
export interface Expiry {
  at: number;
  id: string;
}

export class Expiries {
  #heap: Expiry[] = [];

  get size(): number {
    return this.#heap.length;
  }

  push(entry: Expiry): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  /** Takes out, earliest first, every entry due at `now`. */
  *due(now: number): Generator<Expiry> {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]!.at <= now) {
      const top = heap[0]!;
      const last = heap.pop()!;
      if (heap.length > 0) this.#siftDown(last, 0);
      yield top;
    }
  }

  /** Replaces every entry by `entries` (the live documents' expiries), ordering them in linear time. */
  rebuild(entries: Expiry[]): void {
    this.#heap = entries;
    for (let i = (entries.length >> 1) - 1; i >= 0; i -= 1) this.#siftDown(entries[i]!, i);
  }

  /** Puts `entry` at `start` or below it, moving smaller children up. */
  #siftDown(entry: Expiry, start: number): void {
    const heap = this.#heap;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && heap[child + 1]!.at < heap[child]!.at) child += 1;
      if (heap[child]!.at >= entry.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = entry;
  }
}
