/**
 * MongoDB query semantics over plain documents: filter matching, sorting and projection.
 */
import type { Doc, Filter, Projection, Sort } from '../../lib/ports/documents.ts';
import { compareValues, expandArrays, isPlainObject, lookup, typeRank, valuesEqual } from './values.ts';

/** A plain object whose first key is an operator is an operator expression; otherwise it is a literal. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first?.startsWith('$') === true;
}

export type Predicate = (doc: Doc) => boolean;
/** Tests the values a path reached in one document (see `lookup`). */
type ValuesTest = (values: unknown[]) => boolean;

/**
 * Turns a filter into a predicate. Compiling first means a malformed filter (unknown operator, bad
 * operand) throws even when no document would reach the faulty part, as it does in MongoDB.
 */
export function compileFilter(filter: Filter): Predicate {
  if (!isPlainObject(filter)) throw new Error('a filter must be a document');
  const tests = Object.entries(filter).map(([key, condition]) =>
    key.startsWith('$') ? compileLogical(key, condition) : compilePath(key, condition),
  );
  return (doc) => tests.every((test) => test(doc));
}

function compilePath(path: string, condition: unknown): Predicate {
  const test = compileCondition(condition);
  return (doc) => test(lookup(doc, path));
}

function compileLogical(operator: string, value: unknown): Predicate {
  if (!['$and', '$or', '$nor'].includes(operator)) throw new Error(`unknown top level operator: ${operator}`);
  if (!Array.isArray(value) || value.length === 0) throw new Error(`${operator} must be a nonempty array of filters`);
  const clauses = value.map((clause: unknown) => compileFilter(clause as Filter));
  if (operator === '$and') return (doc) => clauses.every((clause) => clause(doc));
  if (operator === '$or') return (doc) => clauses.some((clause) => clause(doc));
  return (doc) => !clauses.some((clause) => clause(doc));
}

/** A condition on a path: a literal to compare with, or an operator expression. */
export function compileCondition(condition: unknown): ValuesTest {
  if (!isOperatorObject(condition)) return (values) => equalsAny(values, condition);
  const tests = Object.entries(condition).map(([operator, operand]) => compileOperator(operator, operand, condition));
  return (values) => tests.every((test) => test(values));
}

function withoutStatefulFlags(value: RegExp): RegExp {
  // `g` and `y` would make `test` depend on previous calls.
  return value.global || value.sticky ? new RegExp(value.source, value.flags.replace(/[gy]/g, '')) : value;
}

/** Equality as MongoDB applies it: a RegExp operand matches strings, `null` also matches missing fields. */
function equalsOne(candidate: unknown, operand: unknown): boolean {
  if (operand instanceof RegExp) {
    if (candidate instanceof RegExp) return valuesEqual(candidate, operand);
    return typeof candidate === 'string' && withoutStatefulFlags(operand).test(candidate);
  }
  return valuesEqual(candidate, operand);
}

function equalsAny(values: unknown[], operand: unknown): boolean {
  // The common case, a string operand, equals only the same string (itself or as an array element).
  if (typeof operand === 'string') {
    return values.some((value) => value === operand || (Array.isArray(value) && value.includes(operand)));
  }
  return expandArrays(values).some((candidate) => equalsOne(candidate, operand));
}

function requireArray(operator: string, operand: unknown): unknown[] {
  if (!Array.isArray(operand)) throw new Error(`${operator} needs an array`);
  return operand;
}

/** Range operators only compare values of the same type class ("type bracketing"). */
function range(operand: unknown, accept: (order: number) => boolean): ValuesTest {
  const rank = typeRank(operand);
  return (values) =>
    expandArrays(values).some((candidate) => typeRank(candidate) === rank && accept(compareValues(candidate, operand)));
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
function compileElementMatch(condition: Doc): (element: unknown) => boolean {
  const logical = Object.keys(condition).some((k) => k === '$and' || k === '$or' || k === '$nor');
  if (isOperatorObject(condition) && !logical) {
    const test = compileCondition(condition);
    return (element) => test([element]);
  }
  const predicate = compileFilter(condition);
  return (element) => isPlainObject(element) && predicate(element);
}

function compileOperator(operator: string, operand: unknown, siblings: Doc): ValuesTest {
  switch (operator) {
    case '$eq':
      // Unlike a bare RegExp value, `$eq: /re/` matches only stored regular expressions.
      return (values) => expandArrays(values).some((candidate) => valuesEqual(candidate, operand));
    case '$ne':
      if (operand instanceof RegExp) throw new Error("can't have a regex as the argument of $ne");
      return (values) => !equalsAny(values, operand);
    case '$gt':
      return range(operand, (order) => order > 0);
    case '$gte':
      return range(operand, (order) => order >= 0);
    case '$lt':
      return range(operand, (order) => order < 0);
    case '$lte':
      return range(operand, (order) => order <= 0);
    case '$in': {
      const items = requireArray(operator, operand);
      return (values) => items.some((item) => equalsAny(values, item));
    }
    case '$nin': {
      const items = requireArray(operator, operand);
      return (values) => !items.some((item) => equalsAny(values, item));
    }
    case '$all': {
      const items = requireArray(operator, operand);
      return (values) => items.length > 0 && items.every((item) => equalsAny(values, item));
    }
    case '$exists': {
      const wanted = Boolean(operand);
      return (values) => values.some((v) => v !== undefined) === wanted;
    }
    case '$regex': {
      const regex = regexFrom(operand, siblings.$options);
      return (values) => expandArrays(values).some((v) => typeof v === 'string' && regex.test(v));
    }
    case '$options':
      if (!('$regex' in siblings)) throw new Error('$options needs a $regex');
      return () => true;
    case '$not': {
      if (operand instanceof RegExp) return (values) => !equalsAny(values, operand);
      if (!isOperatorObject(operand)) throw new Error('$not needs a regex or a document of operators');
      const inner = compileCondition(operand);
      return (values) => !inner(values);
    }
    case '$elemMatch': {
      if (!isPlainObject(operand)) throw new Error('$elemMatch needs an object');
      const test = compileElementMatch(operand);
      return (values) => values.some((v) => Array.isArray(v) && v.some(test));
    }
    case '$size':
      if (typeof operand !== 'number' || !Number.isInteger(operand)) throw new Error('$size needs an integer');
      return (values) => values.some((v) => Array.isArray(v) && v.length === operand);
    default:
      throw new Error(`unknown operator: ${operator}`);
  }
}

/** The value a document sorts by: arrays sort by their smallest element ascending, largest descending. */
function sortValue(doc: Doc, path: string, direction: 1 | -1): unknown {
  // A top-level field holding anything but an array, the common case, sorts by its value as it is.
  if (!path.includes('.')) {
    const value = doc[path];
    if (!Array.isArray(value)) return value;
  }
  const candidates = lookup(doc, path).flatMap((v) => (Array.isArray(v) ? (v.length ? v : [undefined]) : [v]));
  let best = candidates[0];
  for (const candidate of candidates.slice(1)) {
    if (compareValues(candidate, best) * direction < 0) best = candidate;
  }
  return best;
}

/** Up to this many leading documents are picked by insertion (a page); more are sorted with the rest. */
const PICK_AT_MOST = 256;

/**
 * Validates a sort up front. The returned function orders documents stably, so ties keep their natural (insertion)
 * order; given `first`, it returns only the first `first` of that order, and a few (a page of a large collection) are
 * picked in one pass without sorting the rest.
 */
export function compileSort(sort: Sort | undefined): <T extends Doc>(docs: T[], first?: number) => T[] {
  const keys = Object.entries(sort ?? {});
  for (const [path, direction] of keys) {
    if (direction !== 1 && direction !== -1) throw new Error(`sort direction for ${path} must be 1 or -1`);
  }
  type Decorated<T> = { doc: T; values: unknown[] };
  const decorate = <T extends Doc>(doc: T): Decorated<T> => ({
    doc,
    values: keys.map(([path, dir]) => sortValue(doc, path, dir)),
  });
  /** How a document orders against sort values already taken, without keeping its own. */
  const against = (doc: Doc, values: unknown[]) => {
    for (let i = 0; i < keys.length; i++) {
      const [path, direction] = keys[i]!;
      const compared = compareValues(sortValue(doc, path, direction), values[i]) * direction;
      if (compared !== 0) return compared;
    }
    return 0;
  };
  const order = (a: Decorated<Doc>, b: Decorated<Doc>) => {
    for (let i = 0; i < keys.length; i++) {
      const compared = compareValues(a.values[i], b.values[i]) * keys[i]![1];
      if (compared !== 0) return compared;
    }
    return 0;
  };
  return <T extends Doc>(docs: T[], first = docs.length): T[] => {
    // Nothing to order: one document, or none, sorts as it is.
    if (keys.length === 0 || docs.length < 2) return first >= docs.length ? docs : docs.slice(0, first);
    if (first <= 0) return [];
    if (first > PICK_AT_MOST || first > docs.length / 4) {
      return docs
        .map(decorate)
        .sort(order)
        .slice(0, first)
        .map((entry) => entry.doc);
    }
    // The `first` smallest so far, in order; a document goes after those it ties with, as a stable sort puts it.
    const kept: Decorated<T>[] = [];
    for (const doc of docs) {
      if (kept.length === first && against(doc, kept[first - 1]!.values) >= 0) continue;
      const entry = decorate(doc);
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (order(entry, kept[middle]!) < 0) high = middle;
        else low = middle + 1;
      }
      kept.splice(low, 0, entry);
      if (kept.length > first) kept.pop();
    }
    return kept.map((entry) => entry.doc);
  };
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
      if (next !== undefined) {
        node = next;
        return;
      }
      const created = {};
      node[segment] = created;
      node = created;
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

/**
 * Validates a projection up front and returns the function applying it. Projected documents share
 * nested values with their source; callers copy them afterwards.
 */
export function compileProjection(projection: Projection | undefined): (doc: Doc) => Doc {
  const entries = Object.entries(projection ?? {});
  if (entries.length === 0) return (doc) => doc;
  for (const [path, flag] of entries) {
    if (flag !== 0 && flag !== 1 && typeof flag !== 'boolean') throw new Error(`unsupported projection for ${path}`);
  }
  const fields = entries.filter(([path]) => path !== '_id');
  const idFlag = projection?._id;
  const inclusion = fields.length > 0 ? Boolean(fields[0]![1]) : Boolean(idFlag);
  if (fields.some(([, flag]) => Boolean(flag) !== inclusion)) {
    throw new Error('cannot mix inclusion and exclusion in a projection');
  }
  if (!inclusion) {
    const tree = pathTree(entries.filter(([, flag]) => !flag).map(([path]) => path));
    return (doc) => exclude(doc, tree) as Doc;
  }
  const paths = fields.map(([path]) => path);
  if (idFlag === undefined || idFlag) paths.unshift('_id');
  const tree = pathTree(paths);
  return (doc) => include(doc, tree) as Doc;
}
