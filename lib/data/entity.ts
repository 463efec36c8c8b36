import type { DocumentCollection, DocumentStore, Filter, Sort } from '../ports/documents.ts';

/** Stored form of every entity: the API shape plus `_id` (= `id`) and private fields the presenter strips. */
export type Stored<T> = T & { _id: string };

export interface Page {
  page: number;
  pageSize: number;
}

export interface PageResult<T> {
  items: T[];
  total: number;
}

/** Strips `_id` and the named private fields: what leaves a repository is the API shape. */
export function publicShape<T extends object>(doc: object, hidden: readonly string[] = []): T {
  // Copied field by field rather than deleted afterwards: a deleted property turns the object into a slow dictionary.
  // Keys rather than entries: no [key, value] pair is allocated per field of every document read.
  const source = doc as Record<string, unknown>;
  const shape: Record<string, unknown> = {};
  for (const field of Object.keys(source)) if (field !== '_id' && !hidden.includes(field)) shape[field] = source[field];
  return shape as T;
}

export async function findPage<T extends object>(
  collection: DocumentCollection<T>,
  filter: Filter,
  page: Page,
  sort: Sort = { createdAt: 1, _id: 1 },
): Promise<PageResult<T>> {
  const [items, total] = await Promise.all([
    collection.find(filter, { sort, skip: (page.page - 1) * page.pageSize, limit: page.pageSize }),
    collection.countDocuments(filter),
  ]);
  return { items, total };
}

/** One condition of a Logto search: `values` of `field` (every search field when absent) matched by `mode`. */
export interface SearchMatch {
  field?: string;
  /** `like`: Logto's LIKE pattern (`%` any run, `_` one character, `\\` escapes); `exact`: one of `values`. */
  mode: 'exact' | 'like';
  values: string[];
}

/** Logto's search (`search`, `search.<field>`, `mode.<field>`, `joint`, `isCaseSensitive`), parsed. */
export interface Search {
  matches: SearchMatch[];
  joint: 'and' | 'or';
  isCaseSensitive: boolean;
}

/** A parsed Logto search, or a plain text any search field contains (Logto's `q`). */
export type SearchInput = Search | string | undefined;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** A LIKE pattern as an anchored regular expression: only `%` and `_` are wildcards, `\\` makes the next literal. */
function likeSource(pattern: string): string {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern.charAt(index);
    if (char === '\\' && index + 1 < pattern.length) source += escapeRegex(pattern.charAt(++index));
    else if (char === '%') source += '[\\s\\S]*';
    else if (char === '_') source += '[\\s\\S]';
    else source += escapeRegex(char);
  }
  return `^${source}$`;
}

function matchFilter(match: SearchMatch, fields: readonly string[], caseSensitive: boolean): Filter {
  const flags = caseSensitive ? '' : 'i';
  const condition =
    match.mode === 'exact'
      ? caseSensitive
        ? { $in: match.values }
        : new RegExp(`^(?:${match.values.map(escapeRegex).join('|')})$`, flags)
      : new RegExp(likeSource(match.values[0] ?? ''), flags);
  const targets = match.field ? [match.field] : fields;
  return { $or: targets.map((field) => ({ [field]: condition })) };
}

/** The document filter of a search over the given fields (a plain text: case-insensitive substring of any). */
export function searchFilter(search: SearchInput, fields: readonly string[]): Filter {
  if (!search) return {};
  if (typeof search === 'string') {
    const pattern = new RegExp(escapeRegex(search), 'i');
    return { $or: fields.map((field) => ({ [field]: pattern })) };
  }
  if (search.matches.length === 0) return {};
  const conditions = search.matches.map((match) => matchFilter(match, fields, search.isCaseSensitive));
  return { [search.joint === 'and' ? '$and' : '$or']: conditions };
}

export interface EntityOptions<T> {
  /** Fields `?search=` looks in. */
  searchFields: ReadonlyArray<keyof T & string>;
  /** Private fields stored beside the entity that never leave the repository. */
  hidden?: readonly string[];
  /** Turns a stored document into the API shape (default: strip `_id` and the hidden fields). */
  present?: (doc: Stored<T>) => T;
}

/**
 * The part every entity repository shares: insert, find one or many by id, a searchable page, update with
 * `$set`, delete returning what was deleted. `P` is what is stored beside the public shape (secret digests,
 * built-in markers). Repositories spread `operations` and add their own queries on `collection`.
 */
export function createEntityRepository<T extends { id: string }, P extends object = object>(
  store: DocumentStore,
  name: string,
  options: EntityOptions<T>,
) {
  const collection = store.collection<Stored<T> & Partial<P>>(name);
  const present = options.present ?? ((doc: Stored<T>) => publicShape<T>(doc, options.hidden));
  const presentOrNull = (doc: Stored<T> | null) => (doc ? present(doc) : null);

  const operations = {
    async insert(entity: T, stored?: P): Promise<T> {
      await collection.insertOne({ ...entity, ...stored, _id: entity.id } as Stored<T> & Partial<P>);
      return entity;
    },
    async findById(id: string): Promise<T | null> {
      return presentOrNull(await collection.findOne({ _id: id }));
    },
    async findByIds(ids: readonly string[]): Promise<T[]> {
      if (ids.length === 0) return [];
      return (await collection.find({ _id: { $in: [...ids] } }, { sort: { createdAt: 1, _id: 1 } })).map(present);
    },
    /** One page of the entities matching `filter` and `search`. */
    async list(page: Page, search?: SearchInput, filter: Filter = {}): Promise<PageResult<T>> {
      const { items, total } = await findPage(
        collection,
        { $and: [filter, searchFilter(search, options.searchFields)] },
        page,
      );
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<T>): Promise<T | null> {
      return presentOrNull(
        await collection.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' }),
      );
    },
    async delete(id: string): Promise<T | null> {
      return presentOrNull(await collection.findOneAndDelete({ _id: id }));
    },
  };
  return { collection, present, operations };
}
