/**
 * A substring index of the in-memory store (`IndexSpec.substring`): for one field, the slots of the documents whose
 * strings there contain each trigram (three consecutive UTF-16 units), so that an unanchored regular expression, such
 * as a Logto search for `%text%` or a plain `q`, reads only the documents holding every trigram of its literal text
 * instead of every document. Strings are indexed in the form a case-insensitive regular expression compares them in
 * (`foldCase`), so one index serves case-sensitive and case-insensitive searches alike; the filter then tests each
 * candidate, so the index only has to hold every document that can match.
 */
import type { Doc } from '../../lib/ports/documents.ts';
import { lookup } from './values.ts';

const GRAM = 3;
const INITIAL_CAPACITY = 4;

/**
 * The text as a regular expression without the `u` flag compares it under the `i` flag (ECMAScript's Canonicalize):
 * each unit upper-cased, unless that gives several units, or an ASCII unit for a non-ASCII one. Two texts a
 * case-insensitive expression holds equal have the same fold.
 */
export function foldCase(text: string): string {
  // ASCII alone, the common case: upper-casing is the whole rule.
  if (/^\p{ASCII}*$/u.test(text)) return text.toUpperCase();
  let folded = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text[i]!;
    const upper = unit.toUpperCase();
    folded += upper.length !== 1 || (unit.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128) ? unit : upper;
  }
  return folded;
}

/**
 * The trigrams of a folded text, each as a number (its three UTF-16 units, 16 bits each, in 48 bits: exact in a
 * double), so that indexing a text makes no strings; a trigram met twice is there twice.
 */
function trigramsOf(folded: string, into: number[] = []): number[] {
  for (let i = 0; i + GRAM <= folded.length; i += 1) {
    into.push(folded.charCodeAt(i) * 4_294_967_296 + folded.charCodeAt(i + 1) * 65_536 + folded.charCodeAt(i + 2));
  }
  return into;
}

/** Characters a regular expression source takes literally only behind a backslash. */
const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
/** Tokens that match any text, or any one character: they separate the literal runs around them. */
const WILDCARDS = ['[\\s\\S]*', '[\\s\\S]+', '[\\s\\S]', '.*', '.+', '.'];

/**
 * The literal texts every string a regular expression matches contains, for the sources a search builds: literal
 * characters (escaped where they are syntax), wildcards (`[\s\S]*`, `.*`, `[\s\S]`, `.`) between them, `^` first and
 * `$` last. Undefined for anything else (alternatives, groups, classes, quantifiers), and for the `u` and `v` flags,
 * whose case folding differs.
 */
export function requiredLiterals(regex: RegExp): string[] | undefined {
  if (regex.unicode || regex.flags.includes('v')) return undefined;
  const source = regex.source;
  const literals: string[] = [];
  let current = '';
  let i = source.startsWith('^') ? 1 : 0;
  const end = source.endsWith('$') && !source.endsWith('\\$') ? source.length - 1 : source.length;
  while (i < end) {
    const wildcard = WILDCARDS.find((token) => source.startsWith(token, i));
    if (wildcard) {
      if (current) literals.push(current);
      current = '';
      i += wildcard.length;
      continue;
    }
    const char = source[i]!;
    if (char === '\\') {
      const next = source[i + 1];
      // Only an escaped punctuation character is a literal; `\d`, `\w`, `\u…` and the like are not taken apart.
      if (next === undefined || /[0-9A-Za-z]/.test(next)) return undefined;
      current += next;
      i += 2;
      continue;
    }
    if (SYNTAX.has(char)) return undefined;
    current += char;
    i += 1;
  }
  if (current) literals.push(current);
  return literals;
}

/** A growable sorted list of slots. */
class Postings {
  data = new Int32Array(INITIAL_CAPACITY);
  length = 0;

  /** Where `slot` is or would go. */
  search(slot: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.data[middle]! < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  add(slot: number): void {
    // New documents take the highest slots: the common case appends.
    const at = this.length > 0 && this.data[this.length - 1]! < slot ? this.length : this.search(slot);
    if (this.data[at] === slot && at < this.length) return;
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.copyWithin(at + 1, at, this.length);
    this.data[at] = slot;
    this.length += 1;
  }

  remove(slot: number): void {
    const at = this.search(slot);
    if (at >= this.length || this.data[at] !== slot) return;
    this.data.copyWithin(at, at + 1, this.length);
    this.length -= 1;
  }

  has(slot: number): boolean {
    const at = this.search(slot);
    return at < this.length && this.data[at] === slot;
  }
}

export class SubstringIndex {
  readonly name: string;
  readonly field: string;
  readonly #postings = new Map<number, Postings>();
  /** Documents holding a regular expression in the field, which an equal one matches as a value: always candidates. */
  readonly #patterns = new Set<number>();

  constructor(name: string, field: string) {
    this.name = name;
    this.field = field;
  }

  add(slot: number, doc: Doc): void {
    const { grams, pattern } = this.#gramsOf(doc);
    // A trigram met again adds nothing: its postings hold the slot already.
    for (const gram of grams) {
      let postings = this.#postings.get(gram);
      if (!postings) {
        postings = new Postings();
        this.#postings.set(gram, postings);
      }
      postings.add(slot);
    }
    if (pattern) this.#patterns.add(slot);
  }

  remove(slot: number, doc: Doc): void {
    const { grams } = this.#gramsOf(doc);
    for (const gram of grams) {
      const postings = this.#postings.get(gram);
      if (!postings) continue;
      postings.remove(slot);
      if (postings.length === 0) this.#postings.delete(gram);
    }
    this.#patterns.delete(slot);
  }

  /** Whether two versions of a document index alike (most updates leave the searched fields alone). */
  same(a: Doc, b: Doc): boolean {
    const [x, y] = [lookup(a, this.field), lookup(b, this.field)];
    return x.length === y.length && x.every((value, i) => value === y[i]);
  }

  rebuild(docs: Iterable<[number, Doc]>): void {
    this.#postings.clear();
    this.#patterns.clear();
    for (const [slot, doc] of docs) this.add(slot, doc);
  }

  /** Renumbers every slot by `renumber`, which keeps their order. */
  renumber(renumber: (slot: number) => number): void {
    for (const postings of this.#postings.values()) {
      for (let i = 0; i < postings.length; i += 1) postings.data[i] = renumber(postings.data[i]!);
    }
    const patterns = [...this.#patterns].map(renumber);
    this.#patterns.clear();
    for (const slot of patterns) this.#patterns.add(slot);
  }

  /**
   * The slots, ascending, of every document that can hold all these literal texts in the field; undefined when none of
   * them is long enough to have a trigram (the index cannot narrow the search).
   */
  candidates(literals: readonly string[]): number[] | undefined {
    const grams = new Set<number>();
    for (const literal of literals) for (const gram of trigramsOf(foldCase(literal))) grams.add(gram);
    if (grams.size === 0) return undefined;
    const lists: Postings[] = [];
    for (const gram of grams) {
      const postings = this.#postings.get(gram);
      if (!postings) return [...this.#patterns].sort((a, b) => a - b);
      lists.push(postings);
    }
    lists.sort((a, b) => a.length - b.length);
    const [shortest, ...others] = lists as [Postings, ...Postings[]];
    const found: number[] = [];
    for (let i = 0; i < shortest.length; i += 1) {
      const slot = shortest.data[i]!;
      if (others.every((postings) => postings.has(slot))) found.push(slot);
    }
    if (this.#patterns.size === 0) return found;
    return [...new Set([...found, ...this.#patterns])].sort((a, b) => a - b);
  }

  /** The trigrams of every string the field holds (array elements included), and whether it holds a regular expression. */
  #gramsOf(doc: Doc): { grams: number[]; pattern: boolean } {
    const grams: number[] = [];
    let pattern = false;
    for (const value of lookup(doc, this.field)) {
      for (const item of Array.isArray(value) ? [value, ...value] : [value]) {
        if (typeof item === 'string') trigramsOf(foldCase(item), grams);
        else if (item instanceof RegExp) pattern = true;
      }
    }
    return { grams, pattern };
  }
}
