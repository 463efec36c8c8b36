import type { DocumentStore, Filter } from '../ports/documents.ts';
import type { Page } from './entity.ts';

/** The fixed side of a relation, e.g. `{ organizationId }` or `{ organizationId, userId }`. */
export type Owner = Record<string, string>;

/** Field values to match; an array matches any of its values. */
export type Match = Record<string, string | readonly string[]>;

function toFilter(match: Match): Filter {
  return Object.fromEntries(
    Object.entries(match).map(([field, value]) => [field, typeof value === 'string' ? value : { $in: [...value] }]),
  );
}

export interface LinkChanges {
  added: string[];
  removed: string[];
}

/** One pair: the owner fields and the target field are named by the relation, so they are looked up by name. */
type LinkDoc = { _id: string; createdAt: number } & Record<string, unknown>;

/**
 * A many-to-many relation stored one document per pair. The `_id` is derived from the pair, so a pair
 * exists at most once even when two requests add it concurrently, and the reported changes are the ones
 * this call actually made (what membership events are built from).
 */
export function createLinks(store: DocumentStore, name: string, ownerFields: readonly string[], targetField: string) {
  const links = store.collection<LinkDoc>(name);
  const ownerFilter = (owner: Owner): Filter => Object.fromEntries(ownerFields.map((field) => [field, owner[field]]));
  const idOf = (owner: Owner, target: string) => JSON.stringify([...ownerFields.map((field) => owner[field]), target]);
  const targetOf = (doc: LinkDoc) => doc[targetField] as string;
  // Links are listed in the order they were made: each gets a creation time after the previous one's, even within
  // one millisecond (or one request adding several), so that order never falls back on the random ids.
  let lastCreatedAt = 0;
  const nextCreatedAt = () => {
    lastCreatedAt = Math.max(Date.now(), lastCreatedAt + 1);
    return lastCreatedAt;
  };

  async function targetsOf(owner: Owner): Promise<string[]> {
    return (await links.find(ownerFilter(owner), { sort: { createdAt: 1, _id: 1 } })).map(targetOf);
  }

  async function add(owner: Owner, targets: readonly string[]): Promise<string[]> {
    const added: string[] = [];
    for (const target of new Set(targets)) {
      const createdAt = nextCreatedAt();
      // An upsert rather than an insert that may fail on a duplicate: inside a MongoDB transaction any failed
      // write aborts the whole transaction, so "already linked" must not be an error.
      const result = await links.updateOne(
        { _id: idOf(owner, target) },
        { $setOnInsert: { ...ownerFilter(owner), [targetField]: target, createdAt } },
        { upsert: true },
      );
      if (result.upsertedId !== null) added.push(target);
    }
    return added;
  }

  async function removeMany(owner: Owner, targets: readonly string[]): Promise<string[]> {
    const removed: string[] = [];
    for (const target of new Set(targets)) {
      if ((await links.deleteOne({ _id: idOf(owner, target) })) === 1) removed.push(target);
    }
    return removed;
  }

  return {
    async prepare() {
      await links.createIndex({ keys: Object.fromEntries(ownerFields.map((field) => [field, 1 as const])) });
      // Lists page through an owner's links oldest first: the store walks this index instead of sorting.
      await links.createIndex({ keys: { [ownerFields[0]!]: 1, createdAt: 1, _id: 1 } });
      await links.createIndex({ keys: { [targetField]: 1 } });
    },
    targetsOf,
    /** Links matching field values (an array means any of them), e.g. `{ organizationId, userId: [a, b] }`. */
    async where(match: Match): Promise<Owner[]> {
      const docs = await links.find(toFilter(match), { sort: { createdAt: 1, _id: 1 } });
      return docs.map((doc) =>
        Object.fromEntries([...ownerFields, targetField].map((field) => [field, doc[field] as string])),
      );
    },
    /** One page of `field` (default: the target) of the links matching, oldest first, cut by the store. */
    async page(match: Match, page: Page, field: string = targetField): Promise<{ values: string[]; total: number }> {
      const filter = toFilter(match);
      const docs = await links.find(filter, {
        sort: { createdAt: 1, _id: 1 },
        skip: (page.page - 1) * page.pageSize,
        limit: page.pageSize,
        projection: { [field]: 1 },
      });
      return { values: docs.map((doc) => doc[field] as string), total: await links.countDocuments(filter) };
    },
    async has(owner: Owner, target: string): Promise<boolean> {
      return (await links.countDocuments({ _id: idOf(owner, target) })) === 1;
    },
    add,
    async remove(owner: Owner, target: string): Promise<boolean> {
      return (await removeMany(owner, [target])).length === 1;
    },
    /** Makes the owner's targets exactly `targets`. */
    async replace(owner: Owner, targets: readonly string[]): Promise<LinkChanges> {
      const wanted = new Set(targets);
      const current = await targetsOf(owner);
      const removed = await removeMany(
        owner,
        current.filter((target) => !wanted.has(target)),
      );
      const added = await add(owner, [...wanted]);
      return { added, removed };
    },
    /** Deletes every link matching, e.g. all links of a deleted user. */
    async removeWhere(match: Match): Promise<number> {
      return links.deleteMany(toFilter(match));
    },
  };
}

export type Links = ReturnType<typeof createLinks>;
