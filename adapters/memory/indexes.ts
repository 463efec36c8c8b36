/**
 * Index bookkeeping for the in-memory document store: unique-index entries (multikey and compound, as
 * MongoDB builds them) and TTL expiry times.
 */
import { DuplicateKeyError, type Doc, type IndexSpec } from '../../lib/ports/documents.ts';
import { canonicalKey, lookup } from './values.ts';

export interface MemoryIndex {
  readonly name: string;
  readonly spec: IndexSpec;
  /** Unique indexes only: index entry → canonical `_id` of the document holding it. */
  readonly owners: Map<string, string> | null;
  /** The field of a unique index on one top-level field, whose owners answer an equality on it; null otherwise. */
  readonly uniqueField: string | null;
}

/** An index entry: the canonical keys of one tuple of field values. */
const entryOf = (tuple: string[]): string => JSON.stringify(tuple);

export function defaultIndexName(keys: IndexSpec['keys']): string {
  return Object.entries(keys)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');
}

export function sameIndex(a: IndexSpec, b: IndexSpec): boolean {
  return (
    canonicalKey(a.keys) === canonicalKey(b.keys) &&
    Boolean(a.unique) === Boolean(b.unique) &&
    Boolean(a.sparse) === Boolean(b.sparse) &&
    Boolean(a.substring) === Boolean(b.substring) &&
    a.expireAfterSeconds === b.expireAfterSeconds
  );
}

export function validateIndexSpec(spec: IndexSpec): void {
  const fields = Object.entries(spec.keys ?? {});
  if (fields.length === 0) throw new Error('index keys must not be empty');
  for (const [field, direction] of fields) {
    if (direction !== 1 && direction !== -1) throw new Error(`unsupported index direction for ${field}`);
  }
  if (spec.substring && (fields.length !== 1 || spec.unique || spec.sparse || spec.expireAfterSeconds !== undefined)) {
    throw new Error('a substring index must have exactly one key and be neither unique, sparse nor TTL');
  }
  if (spec.expireAfterSeconds !== undefined) {
    if (fields.length !== 1) throw new Error('a TTL index must have exactly one key');
    if (!Number.isFinite(spec.expireAfterSeconds) || spec.expireAfterSeconds < 0) {
      throw new Error('expireAfterSeconds must be a non-negative number');
    }
  }
}

/** Canonical keys of one field: each element of an array value is its own entry (multikey). */
function fieldKeys(doc: Doc, path: string): { keys: string[]; present: boolean } {
  const values = lookup(doc, path);
  const present = values.some((v) => v !== undefined);
  const keys = values.flatMap((v) => (Array.isArray(v) && v.length > 0 ? v : [v])).map(canonicalKey);
  return { keys: [...new Set(keys)], present };
}

/**
 * The entries a document contributes to an index. Missing fields index as null; a sparse index skips
 * documents that have none of its fields (MongoDB's rule for sparse compound indexes).
 */
export function indexEntries(doc: Doc, spec: IndexSpec): string[] {
  const fields = Object.keys(spec.keys).map((path) => fieldKeys(doc, path));
  if (spec.sparse && !fields.some((field) => field.present)) return [];
  let tuples: string[][] = [[]];
  for (const field of fields) tuples = tuples.flatMap((tuple) => field.keys.map((key) => [...tuple, key]));
  return tuples.map(entryOf);
}

/** The entry of a single-field index for documents whose field holds `value` (or an array holding it). */
export function singleFieldEntry(value: unknown): string {
  return entryOf([canonicalKey(value)]);
}

/** When a TTL index expires the document (ms since epoch): the earliest date in the field plus the delay. */
export function expiryOf(doc: Doc, spec: IndexSpec): number | undefined {
  if (spec.expireAfterSeconds === undefined) return undefined;
  const field = Object.keys(spec.keys)[0]!;
  // A top-level date, the common case.
  const top = doc[field];
  if (top instanceof Date) return top.getTime() + spec.expireAfterSeconds * 1000;
  const dates = lookup(doc, field)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is Date => v instanceof Date);
  if (dates.length === 0) return undefined;
  return Math.min(...dates.map((d) => d.getTime())) + spec.expireAfterSeconds * 1000;
}

/**
 * The index `spec` describes over `docs`, or null when `indexes` already holds it. As MongoDB: an index of
 * the same name with other options, or another name on the same keys, is an error (except a substring index beside
 * an ordinary one), and a unique index cannot be built over documents that already share a key.
 */
export function buildIndex(
  collection: string,
  spec: IndexSpec,
  indexes: ReadonlyMap<string, MemoryIndex>,
  docs: Iterable<[string, Doc]>,
): MemoryIndex | null {
  validateIndexSpec(spec);
  const normalized: IndexSpec = { ...spec, keys: { ...spec.keys }, name: spec.name ?? defaultIndexName(spec.keys) };
  const name = normalized.name!;
  const existing = indexes.get(name);
  if (existing && sameIndex(existing.spec, normalized)) return null;
  if (existing) throw new Error(`an index named ${name} already exists with different options`);
  for (const other of indexes.values()) {
    // A substring index answers other queries than an ordinary one: one of each may share a field.
    if (
      Boolean(other.spec.substring) === Boolean(normalized.substring) &&
      canonicalKey(other.spec.keys) === canonicalKey(normalized.keys)
    ) {
      throw new Error(`an index on the same keys already exists as ${other.name}`);
    }
  }
  const owners = normalized.unique ? new Map<string, string>() : null;
  if (owners) {
    for (const [id, doc] of docs) {
      for (const entry of indexEntries(doc, normalized)) {
        if (owners.has(entry)) throw new DuplicateKeyError(collection, { ...normalized.keys });
        owners.set(entry, id);
      }
    }
  }
  const fields = Object.keys(normalized.keys);
  const uniqueField = owners && fields.length === 1 && !fields[0]!.includes('.') ? fields[0]! : null;
  return { name, spec: normalized, owners, uniqueField };
}
