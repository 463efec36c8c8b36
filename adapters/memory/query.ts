/**
 * MongoDB query semantics over plain documents: filter matching, sorting and projection.
 */
import type { Doc, Filter, Projection, Sort } from '../../lib/ports/documents.ts';
import { compareValues, expandArrays, isPlainObject, lookup, typeRank, valuesEqual } from './values.ts';

/** A plain object whose first key is an operator is an operator expression; otherwise it is a literal. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$');
}

export function matches(doc: Doc, filter: Filter): boolean {
  for (const [key, condition] of Object.entries(filter)) {
    if (key.startsWith('$')) {
      if (!matchesLogical(doc, key, condition)) return false;
    } else if (!matchesValues(lookup(doc, key), condition)) {
      return false;
    }
  }
  return true;
}

function clauses(operator: string, value: unknown): Filter[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isPlainObject)) {
    throw new Error(`${operator} must be a nonempty array of filters`);
  }
  return value;
}

function matchesLogical(doc: Doc, operator: string, value: unknown): boolean {
  switch (operator) {
    case '$and':
      return clauses(operator, value).every((clause) => matches(doc, clause));
    case '$or':
      return clauses(operator, value).some((clause) => matches(doc, clause));
    case '$nor':
      return !clauses(operator, value).some((clause) => matches(doc, clause));
    default:
      throw new Error(`unknown top level operator: ${operator}`);
  }
}

/** Tests the values a path reached against a condition (a literal or an operator expression). */
export function matchesValues(values: unknown[], condition: unknown): boolean {
  if (!isOperatorObject(condition)) return equalsAny(values, condition);
  for (const [operator, operand] of Object.entries(condition)) {
    if (!applyOperator(values, operator, operand, condition)) return false;
  }
  return true;
}

function toRegExp(value: RegExp): RegExp {
  // Stateful flags would make `test` depend on previous calls.
  return value.global || value.sticky ? new RegExp(value.source, value.flags.replace(/[gy]/g, '')) : value;
}

/** Equality as MongoDB applies it: a RegExp operand matches strings, `null` also matches missing fields. */
function equalsOne(candidate: unknown, operand: unknown): boolean {
  if (operand instanceof RegExp) {
    if (candidate instanceof RegExp) return valuesEqual(candidate, operand);
    return typeof candidate === 'string' && toRegExp(operand).test(candidate);
  }
  return valuesEqual(candidate, operand);
}

function equalsAny(values: unknown[], operand: unknown): boolean {
  return expandArrays(values).some((candidate) => equalsOne(candidate, operand));
}

function requireArray(operator: string, operand: unknown): unknown[] {
  if (!Array.isArray(operand)) throw new Error(`${operator} needs an array`);
  return operand;
}

/** Range operators only compare values of the same type class ("type bracketing"). */
function compareAny(values: unknown[], operand: unknown, accept: (order: number) => boolean): boolean {
  return expandArrays(values).some(
    (candidate) => typeRank(candidate) === typeRank(operand) && accept(compareValues(candidate, operand)),
  );
}

function regexFrom(operand: unknown, options: unknown): RegExp {
  if (options !== undefined && (typeof options !== 'string' || /[^imsu]/.test(options))) {
    throw new Error(`unsupported $options: ${String(options)}`);
  }
  if (operand instanceof RegExp) {
    const flags = new Set([...operand.flags.replace(/[gy]/g, ''), ...((options as string | undefined) ?? '')]);
    return new RegExp(operand.source, [...flags].join(''));
  }
  if (typeof operand !== 'string') throw new Error('$regex has to be a string or a RegExp');
  return new RegExp(operand, options as string | undefined);
}

/** `$elemMatch` tests elements as values when given operators, as documents when given a filter. */
function elementMatches(element: unknown, condition: Filter): boolean {
  const logical = Object.keys(condition).some((k) => k === '$and' || k === '$or' || k === '$nor');
  if (isOperatorObject(condition) && !logical) return matchesValues([element], condition);
  return isPlainObject(element) && matches(element, condition);
}

function applyOperator(values: unknown[], operator: string, operand: unknown, siblings: Doc): boolean {
  switch (operator) {
    case '$eq':
      // Unlike a bare RegExp value, `$eq: /re/` matches only stored regular expressions.
      return expandArrays(values).some((candidate) => valuesEqual(candidate, operand));
    case '$ne':
      if (operand instanceof RegExp) throw new Error("can't have a regex as the argument of $ne");
      return !equalsAny(values, operand);
    case '$gt':
      return compareAny(values, operand, (c) => c > 0);
    case '$gte':
      return compareAny(values, operand, (c) => c >= 0);
    case '$lt':
      return compareAny(values, operand, (c) => c < 0);
    case '$lte':
      return compareAny(values, operand, (c) => c <= 0);
    case '$in':
      return requireArray(operator, operand).some((item) => equalsAny(values, item));
    case '$nin':
      return !requireArray(operator, operand).some((item) => equalsAny(values, item));
    case '$all': {
      const items = requireArray(operator, operand);
      return items.length > 0 && items.every((item) => equalsAny(values, item));
    }
    case '$exists':
      return values.some((v) => v !== undefined) === Boolean(operand);
    case '$regex': {
      const regex = regexFrom(operand, siblings.$options);
      return expandArrays(values).some((v) => typeof v === 'string' && regex.test(v));
    }
    case '$options':
      if (!('$regex' in siblings)) throw new Error('$options needs a $regex');
      return true;
    case '$not':
      if (operand instanceof RegExp) return !equalsAny(values, operand);
      if (!isOperatorObject(operand)) throw new Error('$not needs a regex or a document of operators');
      return !matchesValues(values, operand);
    case '$elemMatch':
      if (!isPlainObject(operand)) throw new Error('$elemMatch needs an object');
      return values.some((v) => Array.isArray(v) && v.some((element) => elementMatches(element, operand)));
    case '$size':
      if (typeof operand !== 'number' || !Number.isInteger(operand)) throw new Error('$size needs an integer');
      return values.some((v) => Array.isArray(v) && v.length === operand);
    default:
      throw new Error(`unknown operator: ${operator}`);
  }
}

/** The value a document sorts by: arrays sort by their smallest element ascending, largest descending. */
function sortValue(doc: Doc, path: string, direction: 1 | -1): unknown {
  const candidates = lookup(doc, path).flatMap((v) => (Array.isArray(v) ? (v.length ? v : [undefined]) : [v]));
  let best = candidates[0];
  for (const candidate of candidates.slice(1)) {
    if (compareValues(candidate, best) * direction < 0) best = candidate;
  }
  return best;
}

/** Stable, so documents that tie keep their natural (insertion) order. */
export function sortDocuments<T extends Doc>(docs: T[], sort: Sort | undefined): T[] {
  const keys = Object.entries(sort ?? {});
  if (keys.length === 0) return docs;
  for (const [, direction] of keys) {
    if (direction !== 1 && direction !== -1) throw new Error('sort direction must be 1 or -1');
  }
  const decorated = docs.map((doc) => ({ doc, values: keys.map(([path, dir]) => sortValue(doc, path, dir)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const order = compareValues(a.values[i], b.values[i]) * keys[i]![1];
      if (order !== 0) return order;
    }
    return 0;
  });
  return decorated.map((entry) => entry.doc);
}

type PathTree = { [segment: string]: PathTree | true };

function pathTree(paths: string[]): PathTree {
  const root: PathTree = {};
  for (const path of paths) {
    const segments = path.split('.');
    let node = root;
    segments.forEach((segment, i) => {
      if (i === segments.length - 1) {
        if (node[segment] !== undefined) throw new Error(`path collision at ${path}`);
        node[segment] = true;
        return;
      }
      const next = node[segment];
      if (next === true) throw new Error(`path collision at ${path}`);
      node = next ?? (node[segment] = {});
    });
  }
  return root;
}

function include(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.filter(isPlainObject).map((element) => include(element, tree));
  const out: Doc = {};
  for (const [key, child] of Object.entries(value as Doc)) {
    const rule = tree[key];
    if (rule === true) out[key] = child;
    else if (rule !== undefined && (isPlainObject(child) || Array.isArray(child))) out[key] = include(child, rule);
  }
  return out;
}

function exclude(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((element) => (isPlainObject(element) ? exclude(element, tree) : element));
  const out: Doc = {};
  for (const [key, child] of Object.entries(value as Doc)) {
    const rule = tree[key];
    if (rule === true) continue;
    out[key] = rule !== undefined && (isPlainObject(child) || Array.isArray(child)) ? exclude(child, rule) : child;
  }
  return out;
}

/** Returns a new document (sharing nested values with `doc`; callers copy afterwards). */
export function projectDocument<T extends Doc>(doc: T, projection: Projection | undefined): T {
  const entries = Object.entries(projection ?? {});
  if (entries.length === 0) return doc;
  for (const [path, flag] of entries) {
    if (flag !== 0 && flag !== 1 && typeof flag !== 'boolean') throw new Error(`unsupported projection for ${path}`);
  }
  const fields = entries.filter(([path]) => path !== '_id');
  const idFlag = projection?._id;
  const inclusion = fields.length > 0 ? Boolean(fields[0]![1]) : Boolean(idFlag);
  if (fields.some(([, flag]) => Boolean(flag) !== inclusion)) {
    throw new Error('cannot mix inclusion and exclusion in a projection');
  }
  if (!inclusion) return exclude(doc, pathTree(entries.filter(([, flag]) => !flag).map(([path]) => path))) as T;
  const paths = fields.map(([path]) => path);
  if (idFlag === undefined || Boolean(idFlag)) paths.unshift('_id');
  return include(doc, pathTree(paths)) as T;
}
