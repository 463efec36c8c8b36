import { errors } from '../errors.ts';
import type { Search, SearchMatch } from '../data/entity.ts';

/**
 * Logto's search parameters, read from the query string: `search` (every search field) and `search.<field>`
 * hold values, `mode` / `mode.<field>` say how they match (`like`, the default, or `exact`), `joint` (or
 * `jointMode`) combines the conditions (`or` by default), `isCaseSensitive` (`false` by default). Unlike
 * Logto, a field outside the route's search fields, a match mode this service cannot run on every store
 * (`similar_to`, `posix`) and an oversized, empty or NUL-carrying value are refused with 400, never ignored.
 */

const SEARCH_KEY = /^(search|mode)(?:\.(.+))?$/;
const MAX_VALUE_LENGTH = 256;
const MAX_VALUES = 20;
const UNSUPPORTED_MODES = new Set(['similar_to', 'posix', 'similarity']);

function refuse(rawKey: string, message: string): never {
  const key = rawKey.slice(0, 80);
  throw errors.invalidInput(`invalid query: ${key}: ${message}`, { issues: [{ path: `query.${key}`, message }] });
}

function single(key: string, value: string | string[]): string {
  if (Array.isArray(value)) {
    if (value.length !== 1) refuse(key, 'must be given once');
    return value[0] ?? '';
  }
  return value;
}

function fieldOf(key: string, field: string | undefined, fields: readonly string[]): string | undefined {
  if (field === undefined) return undefined;
  if (!fields.includes(field))
    refuse(key, `search field ${field.slice(0, 64)} is not supported here; expect one of ${fields.join(', ')}`);
  return field;
}

/**
 * Splits a query into its search parameters (parsed) and the rest (for the route's own schema). Returns no
 * search when the query has no search value.
 */
export function takeSearch(
  query: Record<string, string | string[] | undefined>,
  fields: readonly string[],
): { search: Search | undefined; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = {};
  const modes = new Map<string | undefined, SearchMatch['mode']>();
  const values = new Map<string | undefined, string[]>();
  let joint: Search['joint'] = 'or';
  let isCaseSensitive = false;
  let count = 0;
  for (const [key, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const found = SEARCH_KEY.exec(key);
    if (found) {
      const field = fieldOf(key, found[2], fields);
      if (found[1] === 'mode') {
        const mode = single(key, raw);
        if (UNSUPPORTED_MODES.has(mode)) refuse(key, `match mode ${mode} is not supported; use exact or like`);
        if (mode !== 'exact' && mode !== 'like') refuse(key, 'must be exact or like');
        modes.set(field, mode);
        continue;
      }
      const list = [raw].flat();
      count += list.length;
      if (count > MAX_VALUES) refuse(key, `at most ${MAX_VALUES} search values`);
      for (const value of list) {
        if (value.length === 0) refuse(key, 'a search value cannot be empty');
        if (value.length > MAX_VALUE_LENGTH) refuse(key, `a search value has at most ${MAX_VALUE_LENGTH} characters`);
        if (value.includes('\u0000')) refuse(key, 'a search value cannot contain NUL');
      }
      values.set(field, [...(values.get(field) ?? []), ...list]);
    } else if (key === 'joint' || key === 'jointMode') {
      const value = single(key, raw);
      if (value !== 'and' && value !== 'or') refuse(key, 'must be and or or');
      joint = value;
    } else if (key === 'isCaseSensitive') {
      const value = single(key, raw);
      if (value !== 'true' && value !== 'false') refuse(key, 'must be true or false');
      isCaseSensitive = value === 'true';
    } else {
      rest[key] = raw;
    }
  }
  const matches: SearchMatch[] = [];
  for (const [field, list] of values) {
    const mode = modes.get(field) ?? modes.get(undefined) ?? 'like';
    if (mode === 'like' && list.length > 1)
      refuse(field ? `search.${field}` : 'search', 'only one value unless the mode is exact');
    matches.push({ ...(field !== undefined && { field }), mode, values: list });
  }
  return { search: matches.length ? { matches, joint, isCaseSensitive } : undefined, rest };
}
