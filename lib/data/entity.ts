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
  const { _id, ...rest } = doc as Record<string, unknown>;
  for (const field of hidden) delete rest[field];
  return rest as T;
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

/** A case-insensitive substring filter over the given fields, for `?search=`. */
export function searchFilter(search: string | undefined, fields: readonly string[]): Filter {
  if (!search) return {};
  const pattern = new RegExp(search.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  return { $or: fields.map((field) => ({ [field]: pattern })) };
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
  store: DocumentStore, name: string, options: EntityOptions<T>,
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
    async list(page: Page, search?: string, filter: Filter = {}): Promise<PageResult<T>> {
      const { items, total } = await findPage(collection, { ...filter, ...searchFilter(search, options.searchFields) }, page);
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<T>): Promise<T | null> {
      return presentOrNull(await collection.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' }));
    },
    async delete(id: string): Promise<T | null> {
      return presentOrNull(await collection.findOneAndDelete({ _id: id }));
    },
  };
  return { collection, present, operations };
}
