/**
 * MongoDB update operators over plain documents, and the upsert seed taken from a filter.
 */
import type { Doc, Filter, Update } from '../../lib/ports/documents.ts';
import { compileCondition, compileFilter, isOperatorObject } from './query.ts';
import { compareValues, copyIn, isArrayIndex, isPlainObject, valuesEqual } from './values.ts';

type Container = Doc | unknown[];

interface Slot {
  container: Container;
  key: string;
}

const OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$setOnInsert', '$min', '$max']);

function splitPath(path: string): string[] {
  // A top-level field name, the common case.
  if (path !== '' && path.charCodeAt(0) !== 36 && !path.includes('.')) return [path];
  const segments = path.split('.');
  for (const segment of segments) {
    if (segment === '') throw new Error(`empty field name in update path '${path}'`);
    if (segment.startsWith('$')) throw new Error(`positional update paths are not supported: '${path}'`);
  }
  return segments;
}

function read(container: Container, key: string): unknown {
  if (Array.isArray(container)) return isArrayIndex(key) ? container[Number(key)] : undefined;
  return container[key];
}

function write(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    container[key] = value;
    return;
  }
  if (!isArrayIndex(key)) throw new Error(`cannot create field '${key}' in an array`);
  const index = Number(key);
  while (container.length < index) container.push(null);
  container[index] = value;
}

/**
 * Finds where `path` lives in `doc`. With `create`, missing intermediate objects are created (and a
 * scalar in the way is an error, as in MongoDB); without it, an unreachable path yields undefined.
 */
function slotFor(doc: Doc, path: string, create: boolean): Slot | undefined {
  const segments = splitPath(path);
  let container: Container = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (Array.isArray(container) && !isArrayIndex(segment)) {
      if (!create) return undefined;
      throw new Error(`cannot create field '${segment}' in an array (path '${path}')`);
    }
    let next = read(container, segment);
    if (next === undefined) {
      if (!create) return undefined;
      next = {};
      write(container, segment, next);
    } else if (!isPlainObject(next) && !Array.isArray(next)) {
      if (!create) return undefined;
      throw new Error(`cannot create field '${segments[i + 1]}' in element {${segment}: ${String(next)}}`);
    }
    container = next as Container;
  }
  return { container, key: segments[segments.length - 1]! };
}

export function setPath(doc: Doc, path: string, value: unknown): void {
  const slot = slotFor(doc, path, true)!;
  write(slot.container, slot.key, value);
}

/** Values of `$push`/`$addToSet`: a single value, or `{ $each: [...] }`. */
function eachOf(operator: string, operand: unknown): unknown[] {
  if (!isPlainObject(operand) || !('$each' in operand)) return [operand];
  for (const key of Object.keys(operand)) {
    if (key !== '$each') throw new Error(`${operator} modifier ${key} is not supported`);
  }
  if (!Array.isArray(operand.$each)) throw new Error(`${operator} $each needs an array`);
  return operand.$each;
}

function arrayAt(slot: Slot, operator: string, create: boolean): unknown[] | undefined {
  const current = read(slot.container, slot.key);
  if (current === undefined) {
    if (!create) return undefined;
    const fresh: unknown[] = [];
    write(slot.container, slot.key, fresh);
    return fresh;
  }
  if (!Array.isArray(current)) throw new Error(`cannot apply ${operator} to a non-array field '${slot.key}'`);
  return current;
}

/** `$pull` conditions: operators test each element, a document filters subdocuments, else equality. */
function compilePull(condition: unknown): (element: unknown) => boolean {
  if (isOperatorObject(condition)) {
    const test = compileCondition(condition);
    return (element) => test([element]);
  }
  if (isPlainObject(condition)) {
    const predicate = compileFilter(condition);
    return (element) => isPlainObject(element) && predicate(element);
  }
  if (condition instanceof RegExp) {
    const regex = new RegExp(condition.source, condition.flags.replace(/[gy]/g, ''));
    return (element) => typeof element === 'string' && regex.test(element);
  }
  return (element) => valuesEqual(element, condition);
}

function applyOne(doc: Doc, operator: string, path: string, operand: unknown, isInsert: boolean): void {
  switch (operator) {
    case '$setOnInsert':
      if (isInsert) setPath(doc, path, copyIn(operand));
      return;
    case '$set':
      setPath(doc, path, copyIn(operand));
      return;
    case '$unset': {
      const slot = slotFor(doc, path, false);
      if (!slot) return;
      // Unsetting an array element leaves a null hole, as in MongoDB.
      if (Array.isArray(slot.container)) {
        if (isArrayIndex(slot.key) && Number(slot.key) < slot.container.length) slot.container[Number(slot.key)] = null;
      } else {
        delete slot.container[slot.key];
      }
      return;
    }
    case '$inc': {
      const slot = slotFor(doc, path, true)!;
      const stored = read(slot.container, slot.key);
      const current = stored === undefined ? 0 : stored;
      if (typeof current !== 'number') throw new Error(`cannot apply $inc to a non-numeric field '${path}'`);
      write(slot.container, slot.key, current + (operand as number));
      return;
    }
    case '$min':
    case '$max': {
      const slot = slotFor(doc, path, true)!;
      const current = read(slot.container, slot.key);
      const order = compareValues(operand, current);
      if (current === undefined || (operator === '$min' ? order < 0 : order > 0)) {
        write(slot.container, slot.key, copyIn(operand));
      }
      return;
    }
    case '$push': {
      const items = eachOf(operator, operand);
      arrayAt(slotFor(doc, path, true)!, operator, true)!.push(...items.map((item) => copyIn(item)));
      return;
    }
    case '$addToSet': {
      const array = arrayAt(slotFor(doc, path, true)!, operator, true)!;
      for (const item of eachOf(operator, operand)) {
        if (!array.some((existing) => valuesEqual(existing, item))) array.push(copyIn(item));
      }
      return;
    }
    case '$pull': {
      const pulled = compilePull(operand);
      const slot = slotFor(doc, path, false);
      const array = slot && arrayAt(slot, operator, false);
      if (!array) return;
      const kept = array.filter((element) => !pulled(element));
      array.splice(0, array.length, ...kept);
      return;
    }
    default:
      throw new Error(`unknown update operator: ${operator}`);
  }
}

/** Whether one path is the other or lies inside it (`a` and `a.b`), without building strings. */
function conflicts(a: string, b: string): boolean {
  if (a === b) return true;
  const [outer, inner] = a.length < b.length ? [a, b] : [b, a];
  return inner.charCodeAt(outer.length) === 46 && inner.startsWith(outer);
}

function validateOperand(operator: string, path: string, operand: unknown): void {
  if (operator === '$inc' && typeof operand !== 'number') throw new Error(`$inc needs a number for '${path}'`);
  if (operator === '$push' || operator === '$addToSet') eachOf(operator, operand);
  if (operator === '$pull') compilePull(operand);
}

/** Rejects what MongoDB rejects before touching any document: replacements, unknown operators, conflicts. */
export function validateUpdate(update: Update): void {
  if (!isPlainObject(update)) throw new Error('update must be a document of update operators');
  let operators = 0;
  for (const operator in update) {
    operators += 1;
    if (!operator.startsWith('$')) throw new Error('update document requires atomic operators');
  }
  if (operators === 0) throw new Error('update document requires atomic operators');
  const paths: string[] = [];
  for (const operator in update) {
    if (!OPERATORS.has(operator)) throw new Error(`unknown update operator: ${operator}`);
    const fields = update[operator];
    if (!isPlainObject(fields)) throw new Error(`${operator} needs a document`);
    for (const path in fields) {
      splitPath(path);
      validateOperand(operator, path, fields[path]);
      for (const other of paths) {
        if (conflicts(other, path))
          throw new Error(`updating the path '${path}' would create a conflict at '${other}'`);
      }
      paths.push(path);
    }
  }
}

/** Applies a validated update to `doc` in place; `$setOnInsert` only counts when inserting. */
export function applyUpdate(doc: Doc, update: Update, isInsert: boolean): void {
  // Walked as `validateUpdate` walks it, without a pair per field.
  for (const operator in update) {
    const fields = update[operator] as Doc;
    for (const path in fields) applyOne(doc, operator, path, fields[path], isInsert);
  }
}

/** The document an upsert starts from: the equality conditions of the filter (`{a: 1}`, `$eq`, `$and`). */
export function seedFromFilter(filter: Filter): Doc {
  const seed: Doc = {};
  const collect = (clause: Filter): void => {
    for (const [key, condition] of Object.entries(clause)) {
      if (key === '$and' && Array.isArray(condition)) {
        condition.filter(isPlainObject).forEach(collect);
      } else if (key.startsWith('$') || condition instanceof RegExp) {
        // Operators and patterns say no value to seed.
      } else if (isOperatorObject(condition)) {
        if ('$eq' in condition) setPath(seed, key, copyIn(condition.$eq));
      } else {
        setPath(seed, key, copyIn(condition));
      }
    }
  };
  collect(filter);
  return seed;
}
