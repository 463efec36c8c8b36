import { setBounded } from '../bounded-map.ts';
import type { DocumentStore } from '../ports/documents.ts';

/** Answers kept per remembered read; past this, the oldest is forgotten first. */
const MAX_ENTRIES = 1000;

/** Freezes an answer and everything it holds: it is shared by every caller that gets it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * `load`, remembered per argument list until a document of one of `collections` (every collection `load` reads)
 * changes. Only where the store counts changes exactly (`changeCount`: the embedded store) is anything remembered,
 * so an answer is never older than the data it came from; on any other store every call loads. Callers share the
 * answers: they are frozen unless `frozen` is false (objects that complete themselves lazily, which their owner
 * already shares). At most 1,000 argument lists are kept per read.
 */
export function remembered<A extends string[], R>(
  store: DocumentStore,
  collections: readonly string[],
  load: (...args: A) => Promise<R>,
  { frozen = true } = {},
): (...args: A) => Promise<R> {
  // Answers are kept as promises: a remembered one is handed out as it is, and callers asking together share one load.
  const answers = new Map<string, { count: number; answer: Promise<R> }>();
  return (...args: A): Promise<R> => {
    const count = store.changeCount(collections);
    if (count === undefined) return load(...args);
    // One argument is its own key; several are encoded so that no two lists share a key, whatever they contain.
    const key = args.length === 1 ? args[0]! : JSON.stringify(args);
    const known = answers.get(key);
    if (known?.count === count) return known.answer;
    // The count read before loading: a write while the load runs leaves a stale count, so the next call loads again.
    const answer = load(...args).then((value) => (frozen ? deepFreeze(value) : value));
    const entry = { count, answer };
    // A failed load is not remembered.
    answer.catch(() => {
      if (answers.get(key) === entry) answers.delete(key);
    });
    answers.delete(key);
    setBounded(answers, key, entry, MAX_ENTRIES);
    return answer;
  };
}
