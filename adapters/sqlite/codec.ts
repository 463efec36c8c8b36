/**
 * How documents are written to the SQLite file: JSON, with the values JSON has no form for tagged as one-key
 * objects, so that every value the document store holds reads back exactly as it was stored:
 * `{"$date": ms}`, `{"$binary": base64}`, `{"$regex": source, "$flags": flags}`, `{"$number": "NaN" | "Infinity" |
 * "-Infinity" | "-0"}`, `{"$bigint": digits}`. An object of the document's own whose first key starts with `$` is
 * wrapped as `{"$object": {...}}`, so that it is never taken for a tag.
 */
import type { Doc } from '../../lib/ports/documents.ts';
import { isPlainObject } from '../memory/values.ts';

function encodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return Object.is(value, -0) ? { $number: '-0' } : value;
      return { $number: String(value) };
    }
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    // A stored document holds no undefined (the store turns it into null), but a nested one may reach here.
    return value === undefined ? null : value;
  }
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value instanceof Date) return { $date: value.getTime() };
  if (value instanceof Uint8Array)
    return { $binary: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (value instanceof RegExp) return { $regex: value.source, $flags: value.flags };
  // What the store copies in is one of the above or a plain object: anything else would read back as something else.
  if (!isPlainObject(value))
    throw new TypeError(`a ${value.constructor?.name ?? 'value'} cannot be stored in a document`);
  const source = value;
  const encoded: Doc = {};
  let tagged = false;
  let first = true;
  for (const key in source) {
    if (first && key.charCodeAt(0) === 36) tagged = true;
    first = false;
    encoded[key] = encodeValue(source[key]);
  }
  return tagged ? { $object: encoded } : encoded;
}

function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = decodeValue(value[i]);
    return value;
  }
  const object = value as Doc;
  for (const key in object) {
    // Only a tag has a first key starting with `$`: the encoder wraps every other such object.
    if (key.charCodeAt(0) === 36) return decodeTag(key, object);
    break;
  }
  for (const key in object) {
    const field = object[key];
    if (field !== null && typeof field === 'object') object[key] = decodeValue(field);
  }
  return object;
}

function decodeTag(tag: string, object: Doc): unknown {
  switch (tag) {
    case '$date':
      return new Date(object.$date as number);
    case '$binary':
      // As the in-memory store hands binaries back: plain bytes (its copies are structured clones).
      return new Uint8Array(Buffer.from(object.$binary as string, 'base64'));
    case '$regex':
      return new RegExp(object.$regex as string, object.$flags as string);
    case '$number':
      return object.$number === '-0' ? -0 : Number(object.$number);
    case '$bigint':
      return BigInt(object.$bigint as string);
    case '$object': {
      const inner = object.$object as Doc;
      for (const key in inner) inner[key] = decodeValue(inner[key]);
      return inner;
    }
    default:
      throw new Error(`unknown tag ${tag} in a stored document`);
  }
}

export function encodeDocument(doc: unknown): string {
  return JSON.stringify(encodeValue(doc));
}

export function decodeDocument(text: string): Doc {
  const decoded = decodeValue(JSON.parse(text));
  if (!isPlainObject(decoded)) throw new Error('a stored document is not an object');
  return decoded;
}
