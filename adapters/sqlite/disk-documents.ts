/**
 * The committed documents of a disk-resident collection: large, append-mostly collections (delivery logs, audit
 * records) stay in their own table of the SQLite file instead of memory. A row holds the document (its `id` key and
 * encoded JSON) and, for each field an index of the collection names, two columns: the value's MongoDB type rank and
 * the value itself, when the field holds exactly one scalar (null, number, string, boolean, date); a row where some
 * indexed field holds anything else (an array, an object, a binary) is flagged `multi`. SQLite indexes cover those
 * columns as the collection's indexes declare them.
 *
 * A query asks SQL for candidates, narrowed by the filter's conditions on indexed fields that SQL can test exactly
 * for scalar values (equality, `$in`, ranges within one type, `_id`), sorted and cut by SQL when the sort is on
 * indexed fields, and then tests every candidate with the filter compiler the in-memory collections use, so the
 * answers are the same. Flagged rows are always candidates, and a query sorts in JS when any exists. Expired rows
 * (TTL indexes) are invisible at once and deleted in bounded steps by a timer. Unique indexes are refused, and
 * `_id`s that are not strings are flagged (the collections kept on disk use string ids).
 *
 * A collection may keep in memory, up to a bound, the documents it inserted that were not changed or removed since
 * (`keepInserted`): a delivery's record is read back and updated once its attempt is made, moments after it was
 * written, and is then read from memory rather than the file. Such a document is the one the file holds (every write
 * of the table goes through here, and a write whose commit fails forgets it), so reads give the same answers.
 */
import type { SQLInputValue } from 'node:sqlite';
import type { Doc, Filter, FindOptions, IndexSpec } from '../../lib/ports/documents.ts';
import { idKeyOfFilter, matchesNeeded, pageOf, type CommittedState, type UniqueOwner } from '../memory/committed.ts';
import { defaultIndexName, expiryOf, sameIndex, validateIndexSpec, type MemoryIndex } from '../memory/indexes.ts';
import { isOperatorObject, type Predicate } from '../memory/query.ts';
import { idKey, lookup } from '../memory/values.ts';
import { decodeDocument, encodeDocument } from './codec.ts';
import type { SqliteDatabase } from './database.ts';

/** How often expired rows are deleted, and how many per step (each step one write). */
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_STEP_ROWS = 1000;
const SWEEP_STEPS = 20;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const rankColumn = (field: string) => quote(`t:${field}`);
const valueColumn = (field: string) => quote(`v:${field}`);

/** A scalar as its columns hold it: [MongoDB type rank, value]; undefined for what only the filter compiler can test. */
function scalarOf(value: unknown): [number, SQLInputValue] | undefined {
  if (value === undefined || value === null) return [1, null];
  if (typeof value === 'string') return [3, value];
  if (typeof value === 'number') return Number.isFinite(value) ? [2, value] : undefined;
  if (typeof value === 'boolean') return [8, value ? 1 : 0];
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? [9, value.getTime()] : undefined;
  return undefined;
}

/** The field's value in the document as its columns hold it; undefined when it is not one scalar. */
function fieldScalar(doc: Doc, field: string): [number, SQLInputValue] | undefined {
  const values = lookup(doc, field);
  return values.length === 1 ? scalarOf(values[0]) : undefined;
}

/** What SQL can say about a filter: conditions every matching scalar row meets, and whether they are all it says. */
interface Narrowed {
  clauses: string[];
  params: SQLInputValue[];
  exact: boolean;
  /**
   * The expiry (ms) every row the clauses allow is later than, when a range on the TTL field says so: once that is
   * now or later, the clauses leave expired rows out themselves.
   */
  expiresAfter?: number;
}

const RANGE_OPERATORS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** What narrowing may use: the indexed fields, and the one TTL index (field and delay, seconds) if there is one. */
interface Columns {
  fields: ReadonlySet<string>;
  ttl: { field: string; seconds: number } | undefined;
}

function narrow(filter: Filter, columns: Columns, into: Narrowed = { clauses: [], params: [], exact: true }): Narrowed {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(condition)) {
      for (const clause of condition) narrow(clause as Filter, columns, into);
    } else if (key === '_id') {
      narrowId(condition, into);
    } else if (key === columns.ttl?.field && narrowExpiry(condition, columns.ttl.seconds, into)) {
      // Narrowed by the expiry column.
    } else if (columns.fields.has(key) && !(condition instanceof RegExp)) {
      const operators = isOperatorObject(condition) ? condition : { $eq: condition };
      for (const [operator, operand] of Object.entries(operators)) narrowField(key, operator, operand, into);
    } else {
      into.exact = false;
    }
  }
  return into;
}

/**
 * A date range on the TTL index's field, said with the expiry column: a row whose field holds one date expires that
 * long after it, and a row whose field holds anything else has no expiry (when the collection has one TTL index), so
 * `field > date` is `expires_at > date + delay`. The SQL indexes end with that column, so a count of a range of
 * unexpired rows reads the index alone. False (nothing added) for any other condition.
 */
function narrowExpiry(condition: unknown, seconds: number, into: Narrowed): boolean {
  if (!isOperatorObject(condition)) return false;
  const operators = Object.entries(condition);
  if (
    !operators.every(
      ([operator, operand]) =>
        RANGE_OPERATORS[operator] && operand instanceof Date && Number.isFinite(operand.getTime()),
    )
  ) {
    return false;
  }
  for (const [operator, operand] of operators) {
    const expiry = (operand as Date).getTime() + seconds * 1000;
    into.clauses.push(`(expires_at IS NOT NULL AND expires_at ${RANGE_OPERATORS[operator]} ?)`);
    into.params.push(expiry);
    // `> e` leaves out every expiry up to e, `>= e` those before it (e itself expires at e).
    const after = operator === '$gt' ? expiry : operator === '$gte' ? expiry - 1 : undefined;
    if (after !== undefined) into.expiresAfter = Math.max(into.expiresAfter ?? Number.NEGATIVE_INFINITY, after);
  }
  return true;
}

function narrowId(condition: unknown, into: Narrowed): void {
  const ids = isOperatorObject(condition)
    ? Object.keys(condition).length === 1 && Array.isArray(condition.$in)
      ? condition.$in
      : undefined
    : [condition];
  if (!ids?.every((id) => typeof id === 'string')) {
    into.exact = false;
    return;
  }
  into.clauses.push(ids.length === 0 ? '0' : `id IN (${ids.map(() => '?').join(', ')})`);
  into.params.push(...(ids as string[]).map(idKey));
}

function narrowField(field: string, operator: string, operand: unknown, into: Narrowed): void {
  const t = rankColumn(field);
  const v = valueColumn(field);
  const equal = (scalar: [number, SQLInputValue]): string => {
    if (scalar[0] === 1) return `${t} = 1`;
    into.params.push(scalar[0], scalar[1]);
    return `(${t} = ? AND ${v} = ?)`;
  };
  if (operator === '$eq') {
    const scalar = scalarOf(operand);
    if (scalar) into.clauses.push(equal(scalar));
    else into.exact = false;
    return;
  }
  if (operator === '$in' && Array.isArray(operand)) {
    const scalars = operand.map(scalarOf);
    if (scalars.every((scalar) => scalar !== undefined)) {
      into.clauses.push(scalars.length === 0 ? '0' : `(${scalars.map(equal).join(' OR ')})`);
    } else {
      into.exact = false;
    }
    return;
  }
  const comparison = RANGE_OPERATORS[operator];
  const scalar = comparison ? scalarOf(operand) : undefined;
  // A range only matches values of the operand's type (MongoDB's type bracketing): null ranges are left to the filter.
  if (comparison && scalar && scalar[0] !== 1) {
    into.clauses.push(`(${t} = ? AND ${v} ${comparison} ?)`);
    into.params.push(scalar[0], scalar[1]);
    return;
  }
  into.exact = false;
}

interface Row {
  id: string;
  doc: string;
}

/** A document kept in memory since it was inserted, with its expiry (ms) as its row has it. */
interface Kept {
  doc: Doc;
  expiry: number | null;
}

export class DiskDocuments implements CommittedState {
  readonly name: string;
  /** Unique indexes are refused, so no index carries entries for the collection to check. */
  readonly indexes = new Map<string, MemoryIndex>();
  readonly writesThrough = true;
  readonly #database: SqliteDatabase;
  readonly #table: string;
  /** The index specs this collection's table was built for, as stored in `meta`. */
  #specs: IndexSpec[] = [];
  /** Indexed fields, in the order of their columns. */
  #fields: string[] = [];
  #fieldSet = new Set<string>();
  /** Whether some row is flagged (then every query tests flagged rows too, and sorts in JS). */
  #hasFlagged = false;
  #upsertSql = '';
  /** The upsert that replaces only an expired row: it changes nothing when a live row has the id. */
  #insertNewSql = '';
  readonly #sweeper: NodeJS.Timeout;
  /** Inserted documents not changed since, oldest first, at most `#keepInserted` (see the module comment). */
  readonly #kept = new Map<string, Kept>();
  readonly #keepInserted: number;
  /** Forgets a kept document, for a write whose commit failed. */
  readonly #forget: ((id: string) => void) | undefined;

  /** `keepInserted`: how many inserted documents to keep in memory until they are changed (none by default). */
  constructor(database: SqliteDatabase, name: string, options: { keepInserted?: number } = {}) {
    this.name = name;
    this.#database = database;
    this.#keepInserted = options.keepInserted ?? 0;
    this.#forget = this.#keepInserted > 0 ? (id) => this.#kept.delete(id) : undefined;
    this.#table = quote(`collection:${name}`);
    const stored = database.db.prepare('SELECT value FROM meta WHERE key = ?').get(this.#metaKey());
    this.#specs = stored ? (JSON.parse(String(stored.value)) as IndexSpec[]) : [];
    const created = database.write(() => {
      database.db.exec(`
        CREATE TABLE IF NOT EXISTS ${this.#table} (
          rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL, expires_at INTEGER, multi INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX IF NOT EXISTS ${quote(`collection:${name}:flagged`)} ON ${this.#table} (rowid) WHERE multi = 1;
        CREATE INDEX IF NOT EXISTS ${quote(`collection:${name}:expiry`)} ON ${this.#table} (expires_at) WHERE expires_at IS NOT NULL;
      `);
    });
    created.catch(() => undefined);
    const columns = new Set(
      database.db
        .prepare(`PRAGMA table_info(${this.#table})`)
        .all()
        .map((column) => String(column.name)),
    );
    this.#setFields(this.#specs.flatMap((spec) => Object.keys(spec.keys)).filter((field) => columns.has(`t:${field}`)));
    this.#hasFlagged = database.statement(`SELECT 1 FROM ${this.#table} WHERE multi = 1 LIMIT 1`).get() !== undefined;
    this.#sweeper = setInterval(() => this.#deleteExpired(), SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  /** Stops the expiry timer. */
  close(): void {
    clearInterval(this.#sweeper);
  }

  changeCount(): undefined {
    // Rows expire without a write: nothing that reads here may be remembered.
    return undefined;
  }

  get(id: string): Doc | undefined {
    const kept = this.#kept.get(id);
    if (kept) return kept.expiry === null || kept.expiry > Date.now() ? kept.doc : undefined;
    const row = this.#database
      .statement(`SELECT doc FROM ${this.#table} WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`)
      .get(id, Date.now());
    return row ? decodeDocument(String(row.doc)) : undefined;
  }

  has(id: string): boolean {
    const kept = this.#kept.get(id);
    if (kept) return kept.expiry === null || kept.expiry > Date.now();
    return (
      this.#database
        .statement(`SELECT 1 FROM ${this.#table} WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)`)
        .get(id, Date.now()) !== undefined
    );
  }

  *scan(filter: Filter): Iterable<[string, Doc]> {
    for (const row of this.#select(narrow(filter, this.#columns()), 'rowid')) yield [row.id, decodeDocument(row.doc)];
  }

  matching(filter: Filter, predicate: Predicate, atMost: number): Doc[] {
    const matches: Doc[] = [];
    if (atMost <= 0) return matches;
    // One document by its id (a record's update, a lookup): one row, with a statement prepared once.
    const id = idKeyOfFilter(filter);
    if (id !== undefined) {
      const doc = this.get(id);
      if (doc !== undefined && predicate(doc)) matches.push(doc);
      return matches;
    }
    for (const [, doc] of this.scan(filter)) {
      if (!predicate(doc)) continue;
      matches.push(doc);
      if (matches.length >= atMost) break;
    }
    return matches;
  }

  page(filter: Filter, predicate: Predicate, options: FindOptions): Doc[] {
    const order = idKeyOfFilter(filter) === undefined ? this.#sqlOrder(options.sort) : undefined;
    if (order === undefined) return pageOf(this.matching(filter, predicate, matchesNeeded(options)), options);
    const narrowed = narrow(filter, this.#columns());
    const { skip = 0, limit = 0 } = options;
    const wanted = limit === 0 ? Number.POSITIVE_INFINITY : Math.abs(limit);
    // Every candidate matches: SQL cuts the page itself.
    const cut = narrowed.exact && !this.#hasFlagged ? { skip, limit: wanted } : undefined;
    const page: Doc[] = [];
    let skipped = cut ? skip : 0;
    for (const row of this.#select(narrowed, order, cut)) {
      const doc = decodeDocument(row.doc);
      if (!predicate(doc)) continue;
      if (skipped < skip) {
        skipped += 1;
        continue;
      }
      page.push(doc);
      if (page.length >= wanted) break;
    }
    return page;
  }

  count(filter: Filter, predicate: Predicate): number {
    const narrowed = narrow(filter, this.#columns());
    if (narrowed.exact && !this.#hasFlagged) {
      const { sql, params } = this.#query('count(*) AS n', narrowed);
      return Number(this.#database.statement(sql).get(...params)!.n);
    }
    let count = 0;
    for (const [, doc] of this.scan(filter)) if (predicate(doc)) count += 1;
    return count;
  }

  uniqueOwner(): UniqueOwner | undefined {
    return undefined;
  }

  otherOwner(): undefined {
    return undefined;
  }

  insert(id: string, doc: Doc): void {
    this.#store(id, doc);
    this.#keep(id, doc);
  }

  insertNew(id: string, doc: Doc): boolean {
    // A write not run (its commit already failed) counts as made: it rejects with that commit.
    let inserted = true;
    void this.#database.write(
      () => {
        const { changes } = this.#database.statement(this.#insertNewSql).run(...this.#columnsOf(id, doc), Date.now());
        inserted = Number(changes) > 0;
      },
      this.#forget && (() => this.#forget!(id)),
    );
    if (inserted) this.#keep(id, doc);
    return inserted;
  }

  replace(id: string, current: Doc, next: Doc): void {
    // Most updates leave the indexed fields and the expiry as they were (a delivery's status, a count): then only the
    // document is written, and SQLite maintains none of the indexes (an upsert setting their columns would).
    this.#kept.delete(id);
    if (this.#sameColumns(current, next)) {
      void this.#database.write(() =>
        this.#database.statement(`UPDATE ${this.#table} SET doc = ? WHERE id = ?`).run(encodeDocument(next), id),
      );
      return;
    }
    this.#store(id, next);
  }

  remove(id: string): void {
    this.#kept.delete(id);
    void this.#database.write(() => this.#database.statement(`DELETE FROM ${this.#table} WHERE id = ?`).run(id));
  }

  applyAll(
    writes: ReadonlyMap<string, Doc | null>,
    visit: (id: string, before: Doc | undefined, after: Doc | undefined) => void,
  ): void {
    for (const [id, next] of writes) {
      if (next) {
        // A new version is an upsert, whatever the row held: the version it replaces is not read back (only the
        // rollback of the SQLite transaction, not a change's `before`, undoes a change written through), except where
        // a new document is to be kept in memory.
        if (this.#keepInserted > 0 && !this.get(id)) this.insert(id, next);
        else {
          this.#kept.delete(id);
          this.#store(id, next);
        }
      } else if (this.has(id)) this.remove(id);
      else continue;
      visit(id, undefined, next ?? undefined);
    }
  }

  live(doc: Doc, now: number): boolean {
    const expiry = this.#expiryOf(doc);
    return expiry === null || expiry > now;
  }

  /** Expired rows are invisible to every query and deleted by a timer (see the module comment). */
  sweep(): void {}

  createIndex(spec: IndexSpec): void {
    validateIndexSpec(spec);
    if (spec.unique) throw new Error(`${this.name} is kept on disk, where unique indexes are not supported`);
    if (spec.substring) throw new Error(`${this.name} is kept on disk, where substring indexes are not supported`);
    const normalized: IndexSpec = { ...spec, keys: { ...spec.keys }, name: spec.name ?? defaultIndexName(spec.keys) };
    const existing = this.#specs.find((known) => known.name === normalized.name);
    const database = this.#database;
    // A new TTL index gives the rows their expiry: kept documents are read from the file again.
    this.#kept.clear();
    if (existing && sameIndex(existing, normalized)) {
      database.write(() => this.#ensureSqlIndex(existing)).catch(() => undefined);
      return;
    }
    if (existing) throw new Error(`an index named ${normalized.name} already exists with different options`);
    const fields = Object.keys(normalized.keys);
    const added = fields.filter((field) => !this.#fieldSet.has(field));
    const specs = [...this.#specs, normalized];
    const written = database.write(() => {
      for (const field of added) {
        database.db.exec(`ALTER TABLE ${this.#table} ADD COLUMN ${rankColumn(field)} INTEGER`);
        database.db.exec(`ALTER TABLE ${this.#table} ADD COLUMN ${valueColumn(field)}`);
      }
      // A TTL index needs no SQL index of its own: the expiry column's serves the deletions, and queries only ever
      // leave expired rows out (every index written costs every write).
      this.#ensureSqlIndex(normalized);
      database
        .statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(this.#metaKey(), JSON.stringify(specs));
      this.#specs = specs;
      this.#setFields([...this.#fields, ...added]);
      // Rows stored before this index get its columns (and, for a TTL index, their expiry).
      if (added.length > 0 || normalized.expireAfterSeconds !== undefined) this.#rewriteAll();
    });
    written.catch(() => undefined);
  }

  #metaKey(): string {
    return `indexes:${this.name}`;
  }

  #columns(): Columns {
    const ttl = this.#specs.filter((spec) => spec.expireAfterSeconds !== undefined);
    const [field] = ttl.length === 1 ? Object.keys(ttl[0]!.keys) : [];
    return {
      fields: this.#fieldSet,
      ttl: field === undefined ? undefined : { field, seconds: ttl[0]!.expireAfterSeconds! },
    };
  }

  /**
   * The SQL index of a (non-TTL) index: its fields' columns in its directions, then the expiry, so that leaving out
   * expired rows needs no row. An index made by an older build with other columns is made again.
   */
  #ensureSqlIndex(spec: IndexSpec): void {
    if (spec.expireAfterSeconds !== undefined) return;
    const name = quote(`collection:${this.name}:${spec.name}`);
    const columns = Object.keys(spec.keys).flatMap((field) => [
      rankColumn(field),
      `${valueColumn(field)}${spec.keys[field] === -1 ? ' DESC' : ''}`,
    ]);
    const sql = `CREATE INDEX ${name} ON ${this.#table} (${[...columns, 'expires_at'].join(', ')})`;
    const stored = this.#database.db
      .prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?")
      .get(`collection:${this.name}:${spec.name}`);
    if (stored && String(stored.sql) === sql) return;
    if (stored) this.#database.db.exec(`DROP INDEX ${name}`);
    this.#database.db.exec(sql);
  }

  #setFields(fields: string[]): void {
    this.#fields = [...new Set(fields)];
    this.#fieldSet = new Set(this.#fields);
    const columns = [
      'id',
      'doc',
      'expires_at',
      'multi',
      ...this.#fields.flatMap((field) => [rankColumn(field), valueColumn(field)]),
    ];
    const updates = columns.slice(1).map((column) => `${column} = excluded.${column}`);
    this.#upsertSql =
      `INSERT INTO ${this.#table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`;
    this.#insertNewSql = `${this.#upsertSql} WHERE ${this.#table}.expires_at <= ?`;
  }

  #expiryOf(doc: Doc): number | null {
    let earliest: number | null = null;
    for (const spec of this.#specs) {
      const expiry = expiryOf(doc, spec);
      if (expiry !== undefined && (earliest === null || expiry < earliest)) earliest = expiry;
    }
    return earliest;
  }

  #columnsOf(id: string, doc: Doc): SQLInputValue[] {
    // An id that is not a string has a key that does not sort as the id does: the row is flagged.
    let flagged = typeof doc._id !== 'string' || id !== doc._id;
    const values: SQLInputValue[] = [];
    for (const field of this.#fields) {
      const scalar = fieldScalar(doc, field);
      if (!scalar) flagged = true;
      values.push(scalar?.[0] ?? null, scalar?.[1] ?? null);
    }
    if (flagged) this.#hasFlagged = true;
    return [id, encodeDocument(doc), this.#expiryOf(doc), flagged ? 1 : 0, ...values];
  }

  /** Whether two versions of a row's document give it the same columns: each indexed field one equal scalar, one expiry. */
  #sameColumns(a: Doc, b: Doc): boolean {
    if (a._id !== b._id || this.#expiryOf(a) !== this.#expiryOf(b)) return false;
    for (const field of this.#fields) {
      const [x, y] = [fieldScalar(a, field), fieldScalar(b, field)];
      if (!x || !y || x[0] !== y[0] || x[1] !== y[1]) return false;
    }
    return true;
  }

  #keep(id: string, doc: Doc): void {
    if (this.#keepInserted === 0) return;
    this.#kept.delete(id);
    this.#kept.set(id, { doc, expiry: this.#expiryOf(doc) });
    if (this.#kept.size > this.#keepInserted) this.#kept.delete(this.#kept.keys().next().value!);
  }

  #store(id: string, doc: Doc): void {
    void this.#database.write(
      () => this.#database.statement(this.#upsertSql).run(...this.#columnsOf(id, doc)),
      this.#forget && (() => this.#forget!(id)),
    );
  }

  /** Recomputes every row's columns, in steps of rowids (inside the caller's write). */
  #rewriteAll(): void {
    const next = this.#database.db.prepare(
      `SELECT rowid, id, doc FROM ${this.#table} WHERE rowid > ? ORDER BY rowid LIMIT 1000`,
    );
    const upsert = this.#database.db.prepare(this.#upsertSql);
    for (let last = 0; ; ) {
      const rows = next.all(last);
      if (rows.length === 0) return;
      for (const row of rows) upsert.run(...this.#columnsOf(String(row.id), decodeDocument(String(row.doc))));
      last = Number(rows[rows.length - 1]!.rowid);
    }
  }

  /** The ORDER BY a sort needs, when SQL can sort exactly; undefined when the sort must be done in JS. */
  #sqlOrder(sort: FindOptions['sort']): string | undefined {
    const keys = Object.entries(sort ?? {});
    if (this.#hasFlagged) return keys.length === 0 ? 'rowid' : undefined;
    const terms: string[] = [];
    for (const [field, direction] of keys) {
      const dir = direction === -1 ? 'DESC' : 'ASC';
      if (field === '_id') terms.push(`id ${dir}`);
      else if (this.#fieldSet.has(field)) terms.push(`${rankColumn(field)} ${dir}`, `${valueColumn(field)} ${dir}`);
      else return undefined;
    }
    // Ties keep their natural order, as the in-memory collections' stable sort keeps it.
    terms.push('rowid ASC');
    return terms.join(', ');
  }

  #query(
    what: string,
    narrowed: Narrowed,
    order?: string,
    cut?: { skip: number; limit: number },
  ): { sql: string; params: SQLInputValue[] } {
    const now = Date.now();
    const conditions: string[] = [];
    const params: SQLInputValue[] = [];
    // Expired rows are invisible: the clauses may say so already (a reader's `expiresAt > now`; flagged rows pass by
    // the clauses), or this does.
    if (this.#hasFlagged || narrowed.expiresAfter === undefined || narrowed.expiresAfter < now) {
      conditions.push('(expires_at IS NULL OR expires_at > ?)');
      params.push(now);
    }
    if (narrowed.clauses.length > 0) {
      const scalarRows = narrowed.clauses.join(' AND ');
      conditions.push(this.#hasFlagged ? `(multi = 1 OR (${scalarRows}))` : scalarRows);
      params.push(...narrowed.params);
    }
    let sql = `SELECT ${what} FROM ${this.#table} WHERE ${conditions.join(' AND ')}`;
    if (order) sql += ` ORDER BY ${order}`;
    if (cut) {
      sql += ' LIMIT ? OFFSET ?';
      params.push(Number.isFinite(cut.limit) ? cut.limit : -1, cut.skip);
    }
    return { sql, params };
  }

  #select(narrowed: Narrowed, order: string, cut?: { skip: number; limit: number }): Iterable<Row> {
    const { sql, params } = this.#query('id, doc', narrowed, order, cut);
    return this.#database.statement(sql).iterate(...params) as Iterable<Row>;
  }

  #deleteExpired(): void {
    const sql = `DELETE FROM ${this.#table} WHERE rowid IN (SELECT rowid FROM ${this.#table} WHERE expires_at <= ? LIMIT ${SWEEP_STEP_ROWS})`;
    for (let step = 0; step < SWEEP_STEPS; step += 1) {
      let deleted = 0;
      void this.#database
        .write(() => {
          deleted = Number(this.#database.statement(sql).run(Date.now()).changes);
        })
        .catch(() => undefined);
      if (deleted < SWEEP_STEP_ROWS) return;
    }
  }
}
