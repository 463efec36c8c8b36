/**
 * Query planning for the in-memory store: which of a collection's indexes narrow a filter to a few candidate
 * documents, which one walks a sort's order so that a page is read without sorting every match, and when an index
 * alone counts the matches. A plan only ever chooses which documents to look at; the compiled filter still tests each
 * one, so every answer is the one a scan gives (in natural order, or the sort's, ties in natural order).
 *
 * - `_id` by equality or `$in`: those documents.
 * - Equality, `$in` and ranges (`$gt`, `$gte`, `$lt`, `$lte`, within one type as MongoDB brackets them) on a prefix of
 *   a non-unique index's fields: a key range of its postings (ordered-index.ts).
 * - An unanchored regular expression on a field with a substring index: the documents holding its trigrams.
 * - `$and` and a filter's fields: the narrowest of them; `$or`: the union, when every clause is narrowed.
 */
import type { Filter, Sort } from '../../lib/ports/documents.ts';
import type { OrderedIndex, RangeTest } from './ordered-index.ts';
import { isOperatorObject } from './query.ts';
import { requiredLiterals, type SubstringIndex } from './substring-index.ts';
import { compareValues, idKey, isPlainObject, typeRank } from './values.ts';

/** What a plan may use of a collection's committed documents. */
export interface Indexed {
  readonly ordered: readonly OrderedIndex[];
  readonly substring: ReadonlyMap<string, SubstringIndex>;
  slotOf(id: string): number | undefined;
}

/** Candidate documents: how many at most, and their slots, ascending (natural order). */
export interface Source {
  size: number;
  slots(): number[];
}

/** A condition an index can answer on one field. */
type Bound =
  | { kind: 'eq'; value: unknown }
  | { kind: 'in'; values: unknown[] }
  | {
      kind: 'range';
      rank: number;
      low?: { value: unknown; inclusive: boolean };
      high?: { value: unknown; inclusive: boolean };
    };

/** The field conditions of a filter (its own and those of `$and` clauses), and whether anything else is in it. */
interface Conditions {
  fields: Map<string, unknown[]>;
  /** Whether the filter has more than field conditions (`$or`, `$nor`, …): no index answers it alone. */
  others: boolean;
}

function conditionsOf(filter: Filter, into: Conditions = { fields: new Map(), others: false }): Conditions {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(condition) && condition.every(isPlainObject)) {
      for (const clause of condition) conditionsOf(clause as Filter, into);
    } else if (key.startsWith('$')) {
      into.others = true;
    } else {
      const list = into.fields.get(key);
      if (list) list.push(condition);
      else into.fields.set(key, [condition]);
    }
  }
  return into;
}

/** A value whose equality an index key answers: one that is not an array, an object or a pattern. */
function isIndexable(value: unknown): boolean {
  if (value === null) return true;
  return ['string', 'number', 'boolean'].includes(typeof value) || value instanceof Date;
}

const RANGE_RANKS = new Set([2, 3, 8, 9]);

/** The bound of one condition on a field, and whether it says all the condition does. */
function boundOf(condition: unknown): { bound: Bound; exact: boolean } | undefined {
  if (!isOperatorObject(condition))
    return isIndexable(condition) ? { bound: { kind: 'eq', value: condition }, exact: true } : undefined;
  let bound: Bound | undefined;
  let exact = true;
  for (const [operator, operand] of Object.entries(condition)) {
    if (operator === '$eq' && isIndexable(operand) && !bound) {
      bound = { kind: 'eq', value: operand };
    } else if (operator === '$in' && Array.isArray(operand) && operand.every(isIndexable) && !bound) {
      const values: unknown[] = [];
      for (const value of operand) if (!values.some((known) => compareValues(known, value) === 0)) values.push(value);
      bound = values.length === 1 ? { kind: 'eq', value: values[0] } : { kind: 'in', values };
    } else if (
      ['$gt', '$gte', '$lt', '$lte'].includes(operator) &&
      RANGE_RANKS.has(typeRank(operand)) &&
      (!bound || (bound.kind === 'range' && bound.rank === typeRank(operand)))
    ) {
      const range: Extract<Bound, { kind: 'range' }> =
        bound?.kind === 'range' ? bound : { kind: 'range', rank: typeRank(operand) };
      const side = { value: operand, inclusive: operator.endsWith('e') };
      if (operator.startsWith('$g')) {
        if (range.low && !tighter(side, range.low, 1)) continue;
        range.low = side;
      } else {
        if (range.high && !tighter(side, range.high, -1)) continue;
        range.high = side;
      }
      bound = range;
    } else {
      exact = false;
    }
  }
  return bound ? { bound, exact } : undefined;
}

/** Whether a range side narrows more than the one it would replace (`direction` 1 for a low side, -1 for a high one). */
function tighter(
  side: { value: unknown; inclusive: boolean },
  than: { value: unknown; inclusive: boolean },
  direction: 1 | -1,
): boolean {
  const order = compareValues(side.value, than.value) * direction;
  return order > 0 || (order === 0 && !side.inclusive);
}

/** The bound of a field's conditions (the first one an index can use), and whether the bound says all they say. */
function fieldBound(conditions: unknown[]): { bound: Bound; exact: boolean } | undefined {
  const bounds = conditions.map(boundOf);
  const first = bounds.find((bound) => bound !== undefined);
  if (!first) return undefined;
  return { bound: first.bound, exact: conditions.length === 1 && first.exact };
}

/** Where a key value lies against a bound, in value order. */
function against(value: unknown, bound: Bound): number {
  if (bound.kind === 'eq') return compareValues(value, bound.value);
  if (bound.kind === 'in') throw new Error('an $in bound is tested one value at a time');
  const rank = typeRank(value);
  if (rank !== bound.rank) return rank < bound.rank ? -1 : 1;
  if (bound.low) {
    const order = compareValues(value, bound.low.value);
    if (order < 0 || (order === 0 && !bound.low.inclusive)) return -1;
  }
  if (bound.high) {
    const order = compareValues(value, bound.high.value);
    if (order > 0 || (order === 0 && !bound.high.inclusive)) return 1;
  }
  return 0;
}

/** The range test of bounds on an index's leading fields (none of them `$in`). */
function rangeTest(index: OrderedIndex, bounds: readonly Bound[]): RangeTest {
  return (key) => {
    for (let i = 0; i < bounds.length; i += 1) {
      const order = against(key[i], bounds[i]!) * index.directions[i]!;
      if (order !== 0) return order;
    }
    return 0;
  };
}

/** One index's plan for a filter: its key ranges, and whether they alone answer the filter. */
interface IndexPlan {
  index: OrderedIndex;
  ranges: Array<[number, number]>;
  /** The leading fields with a bound. */
  bounded: number;
  exact: boolean;
}

function planIndex(index: OrderedIndex, conditions: Conditions): IndexPlan | undefined {
  const bounds: Bound[] = [];
  let exact = !conditions.others && index.multikey.size === 0;
  const used = new Set<string>();
  for (const field of index.fields) {
    const conditionsOfField = conditions.fields.get(field);
    const found = conditionsOfField && fieldBound(conditionsOfField);
    if (!found) break;
    bounds.push(found.bound);
    used.add(field);
    if (!found.exact) exact = false;
    if (found.bound.kind !== 'eq') break;
  }
  if (bounds.length === 0) return undefined;
  if ([...conditions.fields.keys()].some((field) => !used.has(field))) exact = false;
  const last = bounds[bounds.length - 1]!;
  const alternatives =
    last.kind === 'in'
      ? last.values.map((value): Bound[] => [...bounds.slice(0, -1), { kind: 'eq', value }])
      : [bounds];
  const ranges = alternatives.map((alternative) => index.range(rangeTest(index, alternative)));
  return { index, ranges, bounded: bounds.length, exact };
}

const sum = (ranges: ReadonlyArray<[number, number]>) =>
  ranges.reduce((total, [from, to]) => total + Math.max(0, to - from), 0);

function indexSource(plan: IndexPlan): Source {
  return {
    size: sum(plan.ranges) + plan.index.multikey.size,
    slots() {
      const slots: number[] = [...plan.index.multikey];
      for (const [from, to] of plan.ranges) for (const slot of plan.index.slots(from, to)) slots.push(slot);
      return ascending(slots);
    },
  };
}

const ascending = (slots: number[]): number[] => Array.from(new Set(Int32Array.from(slots).sort()));

function fixed(slots: number[]): Source {
  const sorted = ascending(slots);
  return { size: sorted.length, slots: () => sorted };
}

/** The documents an `_id` condition names, when it names them by value. */
function idSource(condition: unknown, indexed: Indexed): Source | undefined {
  const ids = isOperatorObject(condition)
    ? Object.keys(condition).length === 1 && Array.isArray(condition.$in)
      ? condition.$in
      : undefined
    : [condition];
  if (!ids || ids.some((id) => id instanceof RegExp || Array.isArray(id) || isOperatorObject(id))) return undefined;
  const slots: number[] = [];
  for (const id of ids) {
    const slot = indexed.slotOf(idKey(id));
    if (slot !== undefined) slots.push(slot);
  }
  return fixed(slots);
}

/** The regular expression a condition tests a string field with, if that is all it does. */
function patternOf(condition: unknown): RegExp | undefined {
  if (condition instanceof RegExp) return condition;
  if (!isOperatorObject(condition)) return undefined;
  const operators = Object.keys(condition);
  if (!operators.every((operator) => operator === '$regex' || operator === '$options') || !('$regex' in condition))
    return undefined;
  const { $regex: pattern, $options: options } = condition;
  if (typeof options !== 'string' && options !== undefined) return undefined;
  try {
    if (pattern instanceof RegExp) return new RegExp(pattern.source, `${pattern.flags}${options ?? ''}`);
    return typeof pattern === 'string' ? new RegExp(pattern, options) : undefined;
  } catch {
    return undefined;
  }
}

function substringSource(field: string, conditions: unknown[], indexed: Indexed): Source | undefined {
  const index = indexed.substring.get(field);
  if (!index) return undefined;
  for (const condition of conditions) {
    const pattern = patternOf(condition);
    const literals = pattern && requiredLiterals(pattern);
    const slots = literals && index.candidates(literals);
    if (slots) return { size: slots.length, slots: () => slots };
  }
  return undefined;
}

function union(sources: Source[]): Source {
  return {
    size: sources.reduce((total, source) => total + source.size, 0),
    slots: () => ascending(sources.flatMap((source) => source.slots())),
  };
}

/** The narrowest candidates the indexes give for a filter; undefined when none narrows it. */
export function bestSource(filter: Filter, indexed: Indexed): Source | undefined {
  const conditions = conditionsOf(filter);
  const sources: Source[] = [];
  for (const index of indexed.ordered) {
    const plan = planIndex(index, conditions);
    if (plan) sources.push(indexSource(plan));
  }
  for (const [field, list] of conditions.fields) {
    if (field === '_id') {
      for (const condition of list) {
        const source = idSource(condition, indexed);
        if (source) sources.push(source);
      }
      continue;
    }
    const source = substringSource(field, list, indexed);
    if (source) sources.push(source);
  }
  const or = filter.$or;
  if (Array.isArray(or) && or.length > 0 && or.every(isPlainObject)) {
    const clauses = or.map((clause) => bestSource(clause as Filter, indexed));
    if (clauses.every((source) => source !== undefined)) sources.push(union(clauses as Source[]));
  }
  const and = filter.$and;
  if (Array.isArray(and)) {
    for (const clause of and) {
      const or = isPlainObject(clause) ? clause.$or : undefined;
      if (or !== undefined) {
        const source = bestSource({ $or: or }, indexed);
        if (source) sources.push(source);
      }
    }
  }
  let best: Source | undefined;
  for (const source of sources) if (!best || source.size < best.size) best = source;
  return best;
}

/** Whether the filter has no condition at all (`{}`, or `$and` of empty filters). */
export function matchesEverything(filter: Filter): boolean {
  const conditions = conditionsOf(filter);
  return conditions.fields.size === 0 && !conditions.others;
}

/** The number of matches when an index's key ranges alone answer the filter; undefined otherwise. */
export function exactCount(filter: Filter, indexed: Indexed): number | undefined {
  const conditions = conditionsOf(filter);
  for (const index of indexed.ordered) {
    const plan = planIndex(index, conditions);
    if (plan?.exact) return sum(plan.ranges);
  }
  return undefined;
}

/** How to read a sorted page by walking an index in the sort's order. */
export interface Walk {
  index: OrderedIndex;
  from: number;
  to: number;
  backwards: boolean;
  /** Index fields fixed by equality before the first sort key. */
  fixed: number;
  /** Sort keys the index order gives; documents equal on those are sorted by the others. */
  served: number;
  /** The range holds exactly the matches: a page can be skipped to by position. */
  exact: boolean;
}

/** A walk of the index whose order serves the sort (after fields fixed by equality), with the fewest entries. */
export function planWalk(filter: Filter, sort: Sort, indexed: Indexed): Walk | undefined {
  const keys = Object.entries(sort);
  if (keys.length === 0) return undefined;
  const conditions = conditionsOf(filter);
  let best: Walk | undefined;
  for (const index of indexed.ordered) {
    if (index.multikey.size > 0) continue;
    const plan = planIndex(index, conditions);
    // Fields fixed by one value each come first; a range may bound the first sort key.
    let fixedFields = 0;
    const bounds = plan?.bounded ?? 0;
    while (fixedFields < bounds && fixedFields < index.fields.length) {
      const found = fieldBound(conditions.fields.get(index.fields[fixedFields]!)!)!;
      if (found.bound.kind !== 'eq') break;
      fixedFields += 1;
    }
    if (plan && plan.ranges.length !== 1) continue;
    const [field, direction] = keys[0]!;
    if (index.fields[fixedFields] !== field) continue;
    const relative = direction * index.directions[fixedFields]!;
    let served = 1;
    while (served < keys.length && fixedFields + served < index.fields.length) {
      const [next, nextDirection] = keys[served]!;
      if (
        index.fields[fixedFields + served] !== next ||
        nextDirection * index.directions[fixedFields + served]! !== relative
      )
        break;
      served += 1;
    }
    const [from, to] = plan ? plan.ranges[0]! : [0, index.size];
    const exact = plan ? plan.exact : conditions.fields.size === 0 && !conditions.others;
    const walk: Walk = { index, from, to, backwards: relative === -1, fixed: fixedFields, served, exact };
    if (!best || (walk.exact && !best.exact) || (walk.exact === best.exact && to - from < best.to - best.from))
      best = walk;
  }
  return best;
}
