import type { Doc, DocumentCollection, Filter, Sort } from '../ports/documents.ts';

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
export function publicShape<T extends Doc>(doc: Stored<T> | Doc, hidden: readonly string[] = []): T {
  const { _id, ...rest } = doc as Doc;
  for (const field of hidden) delete rest[field];
  return rest as T;
}

export async function findPage<T extends Doc>(
  collection: DocumentCollection<Stored<T>>,
  filter: Filter,
  page: Page,
  sort: Sort = { createdAt: 1, _id: 1 },
): Promise<PageResult<Stored<T>>> {
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
