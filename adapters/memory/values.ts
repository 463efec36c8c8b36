/**
 * Value helpers shared by the in-memory document store: BSON-like ordering, equality, canonical keys,
 * dotted-path lookup and copying. Everything here mirrors what the MongoDB server does for the value
 * types a JavaScript document can hold (numbers, strings, booleans, Dates, RegExps, binaries, objects,
 * arrays, null).
 */
import { randomBytes } from 'node:crypto';
import type { Doc } from '../../lib/ports/documents.ts';
import { setBounded } from '../../lib/bounded-map.ts';
import { isPlainObject } from '../../lib/plain-object.ts';

export { isPlainObject };

/** Rank of each type in MongoDB's cross-type comparison order; missing fields rank as null. */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 1;
  if (typeof value === 'number' || typeof value === 'bigint') return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 5;
  if (value instanceof Uint8Array) return 6;
  if (typeof value === 'boolean') return 8;
  if (value instanceof Date) return 9;
  if (value instanceof RegExp) return 11;
  return 4;
}

function sign(n: number): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareNumbers(a: number | bigint, b: number | bigint): -1 | 0 | 1 {
  // MongoDB orders NaN below every other number and equal to itself.
  const aNaN = typeof a === 'number' && Number.isNaN(a);
  const bNaN = typeof b === 'number' && Number.isNaN(b);
  if (aNaN || bNaN) return aNaN && bNaN ? 0 : aNaN ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

/** Compares by code point, which matches MongoDB's UTF-8 byte order (UTF-16 units would not). */
function compareStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  // UTF-16 units order as code points do unless a surrogate is where the strings first differ; a string that is the
  // other's prefix in units comes first in code points too (a pair it cuts leaves it a lone surrogate, below U+10000).
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (!isSurrogate(x) && !isSurrogate(y)) return x < y ? -1 : 1;
    return compareCodePoints(a, b);
  }
  return a.length < b.length ? -1 : 1;
}

function compareCodePoints(a: string, b: string): -1 | 0 | 1 {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const diff = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (diff !== 0) return sign(diff);
  }
}

function compareArrays(a: readonly unknown[], b: readonly unknown[]): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

/** Embedded documents compare field by field, name then value, in stored order (as MongoDB does). */
function compareObjects(a: Doc, b: Doc): -1 | 0 | 1 {
  const left = Object.entries(a);
  const right = Object.entries(b);
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const [ka, va] = left[i]!;
    const [kb, vb] = right[i]!;
    const byType = sign(typeRank(va) - typeRank(vb));
    if (byType !== 0) return byType;
    const byName = compareStrings(ka, kb);
    if (byName !== 0) return byName;
    const byValue = compareValues(va, vb);
    if (byValue !== 0) return byValue;
  }
  return sign(left.length - right.length);
}

/** Total order over values following MongoDB's comparison/sort order. */
export function compareValues(a: unknown, b: unknown): -1 | 0 | 1 {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return sign(rankA - rankB);
  switch (rankA) {
    case 1:
      return 0;
    case 2:
      return compareNumbers(a as number | bigint, b as number | bigint);
    case 3:
      return compareStrings(a as string, b as string);
    case 5:
      return compareArrays(a as unknown[], b as unknown[]);
    case 6: {
      const x = a as Uint8Array;
      const y = b as Uint8Array;
      if (x.length !== y.length) return sign(x.length - y.length);
      return sign(Buffer.compare(x, y));
    }
    case 8:
      return sign(Number(a) - Number(b));
    case 9:
      return compareNumbers((a as Date).getTime(), (b as Date).getTime());
    case 11: {
      const x = a as RegExp;
      const y = b as RegExp;
      return compareStrings(x.source, y.source) || compareStrings(x.flags, y.flags);
    }
    default:
      return compareObjects(a as Doc, b as Doc);
  }
}

/**
 * Whether MongoDB holds two values equal, i.e. `compareValues(a, b) === 0`, without building the entry lists the
 * order needs: every update compares the whole document before and after it (an unchanged one is not written).
 */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const rank = typeRank(a);
  if (rank !== typeRank(b)) return false;
  if (rank === 5) {
    const [x, y] = [a as readonly unknown[], b as readonly unknown[]];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!valuesEqual(x[i], y[i])) return false;
    return true;
  }
  if (rank === 4) {
    // Embedded documents are equal with the same fields in the same order, each equal.
    const [x, y] = [a as Doc, b as Doc];
    const names = Object.keys(x);
    const others = Object.keys(y);
    if (names.length !== others.length) return false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name !== others[i] || !valuesEqual(x[name], y[name])) return false;
    }
    return true;
  }
  return compareValues(a, b) === 0;
}

/**
 * A canonical string for a value such that two values get the same key exactly when MongoDB treats
 * them as equal (used for `_id` and unique-index lookups).
 */
export function canonicalKey(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'number') return Number.isNaN(value) ? 'n:NaN' : `n:${value === 0 ? 0 : value}`;
  if (typeof value === 'bigint') return `n:${value}`;
  if (typeof value === 'string') return `s:${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `b:${value}`;
  if (value instanceof Date) return `d:${value.getTime()}`;
  if (value instanceof RegExp) return `r:${String(value)}`;
  if (value instanceof Uint8Array) return `x:${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalKey(v)}`)
      .join(',')}}`;
  }
  return `o:${String(value)}`;
}

/** Stored dates held for sharing: the most recent instants, which documents written together tend to share. */
const SHARED_DATES = 256;
const storedDates = new Map<number, Date>();

/**
 * The stored date of an instant. A stored date is never changed in place (every read returns a copy), so the
 * documents of one instant share one: a date costs about 90 bytes, as much as several fields.
 */
function storedDate(value: Date): Date {
  const time = value.getTime();
  const known = storedDates.get(time);
  if (known) return known;
  const stored = new Date(time);
  setBounded(storedDates, time, stored, SHARED_DATES);
  return stored;
}

/**
 * Deep copy of document values. Plain objects, arrays and dates are copied by hand (several times faster
 * than structuredClone on small documents, and this runs on every read and write); anything else falls
 * back to structuredClone. A copy to be stored (`stored`) turns `undefined` into `null`, as the driver serialises
 * it, and shares its dates with the documents stored before it.
 */
function deepCopy(value: unknown, stored: boolean): unknown {
  if (value === undefined) return stored ? null : undefined;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((element) => deepCopy(element, stored));
  if (value instanceof Date) return stored ? storedDate(value) : new Date(value.getTime());
  if (isPlainObject(value)) {
    // A spread takes every field in one step (several times faster than adding them one by one, and the copy keeps
    // them in the object itself); only nested values, and `undefined` in a copy to be stored, are then replaced.
    const copy: Doc = { ...value };
    for (const key in copy) {
      const field = copy[key];
      if (typeof field === 'object' ? field !== null : field === undefined && stored)
        copy[key] = deepCopy(field, stored);
    }
    return copy;
  }
  return structuredClone(value);
}

/** A copy to be stored: of a caller's document, or of a stored one that an update changes. */
export function copyIn<T>(value: T): T {
  return (deepCopy(value, true) ?? null) as T;
}

export function copyOut<T>(value: T): T {
  return deepCopy(value, false) as T;
}

export function isArrayIndex(segment: string): boolean {
  return /^(0|[1-9]\d*)$/.test(segment);
}

/**
 * Every value a dotted path reaches, descending into arrays of subdocuments the way MongoDB does.
 * A path that reaches nothing yields `[undefined]` so that "missing" can be matched (`null`, `$exists`).
 */
export function lookup(value: unknown, path: string): unknown[] {
  // A top-level field of a document, the common case, reaches exactly its value.
  if (!path.includes('.') && isPlainObject(value)) return [value[path]];
  const found = descend(value, path.split('.'), 0);
  return found.length === 0 ? [undefined] : found;
}

function descend(value: unknown, segments: string[], i: number): unknown[] {
  if (i === segments.length) return [value];
  const segment = segments[i]!;
  if (Array.isArray(value)) {
    if (isArrayIndex(segment)) return descend(value[Number(segment)], segments, i + 1);
    return value.filter(isPlainObject).flatMap((element) => descend(element, segments, i));
  }
  if (isPlainObject(value)) return descend(value[segment], segments, i + 1);
  return [];
}

/** The values a condition is tested against: each reached value, plus the elements of reached arrays. */
export function expandArrays(values: unknown[]): unknown[] {
  return values.flatMap((v) => (Array.isArray(v) ? [v, ...v] : [v]));
}

/** A generated `_id`, as the driver assigns one to a document inserted without. */
export function newId(): string {
  return randomBytes(12).toString('hex');
}

/** MongoDB stores `_id` as the first field whatever the order it was given in. Returns `doc` itself when it is. */
export function withIdFirst(doc: Doc): Doc {
  for (const key in doc) {
    if (key === '_id') return doc;
    break;
  }
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

/**
 * The key of a document in its collection's map: a string `_id` (nearly every one) is its own key, any other its
 * canonical form behind a NUL, which a string used as it is never starts with (one that does takes the canonical form).
 */
export function idKey(id: unknown): string {
  return typeof id === 'string' && id.charCodeAt(0) !== 0 ? id : `\u0000${canonicalKey(id)}`;
}

export function immutableIdError(): Error {
  return new Error("performing an update on the path '_id' would modify the immutable field '_id'");
}
