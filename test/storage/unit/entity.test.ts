/** The generic entity repository, on the embedded document store. */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createEntityRepository } from '../../../lib/data/entity.ts';
import { DuplicateKeyError, type DocumentStore } from '../../../lib/ports/documents.ts';

interface Widget {
  id: string;
  name: string;
  colour: string | null;
  createdAt: number;
}

interface WidgetSecrets {
  secretDigest: string;
}

describe('entity repository (library)', () => {
  let store: DocumentStore;
  let widgets: ReturnType<typeof createEntityRepository<Widget, WidgetSecrets>>['operations'];
  let collection: ReturnType<typeof createEntityRepository<Widget, WidgetSecrets>>['collection'];
  let created = 0;

  beforeEach(() => {
    store = createMemoryDocumentStore();
    ({ operations: widgets, collection } = createEntityRepository<Widget, WidgetSecrets>(store, 'widgets', {
      searchFields: ['name', 'colour'],
      hidden: ['secretDigest'],
    }));
  });
  afterEach(() => store.close());

  /** Inserts widgets one millisecond apart, so creation order is their order. */
  const insert = async (...names: string[]) => {
    const inserted: Widget[] = [];
    for (const name of names) {
      created += 1;
      inserted.push(
        await widgets.insert(
          { id: `w${created}`, name, colour: null, createdAt: 1_000 + created },
          { secretDigest: `digest of ${name}` },
        ),
      );
    }
    return inserted;
  };

  it('stores private fields beside the entity and never returns them', async () => {
    const [gear] = await insert('gear');
    expect(gear).to.deep.equal({ id: gear!.id, name: 'gear', colour: null, createdAt: gear!.createdAt });
    expect(await widgets.findById(gear!.id)).to.deep.equal(gear);
    expect(await collection.findOne({ _id: gear!.id })).to.include({ _id: gear!.id, secretDigest: 'digest of gear' });
    expect(await widgets.findById('missing')).to.equal(null);
  });

  it('refuses a second entity with the same id', async () => {
    const [gear] = await insert('gear');
    let refused: unknown;
    try {
      await widgets.insert({ ...gear!, name: 'other' });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(DuplicateKeyError);
    expect((await widgets.findById(gear!.id))?.name).to.equal('gear');
  });

  it('finds many by id in creation order, skipping unknown ids', async () => {
    const [a, b, c] = await insert('a', 'b', 'c');
    expect(await widgets.findByIds([c!.id, 'missing', a!.id])).to.deep.equal([a, c]);
    expect(await widgets.findByIds([b!.id, b!.id])).to.deep.equal([b]);
    expect(await widgets.findByIds([])).to.deep.equal([]);
  });

  it('pages in creation order with the total of all matches', async () => {
    const inserted = await insert('one', 'two', 'three', 'four', 'five');
    expect(await widgets.list({ page: 1, pageSize: 2 })).to.deep.equal({ items: inserted.slice(0, 2), total: 5 });
    expect(await widgets.list({ page: 3, pageSize: 2 })).to.deep.equal({ items: inserted.slice(4), total: 5 });
    expect(await widgets.list({ page: 4, pageSize: 2 })).to.deep.equal({ items: [], total: 5 });
  });

  it('searches its search fields for a case-insensitive substring, taken literally', async () => {
    const [blue, , dotted] = await insert('Blue gear', 'red gear', 'a.b');
    await widgets.update(blue!.id, { colour: 'NAVY' });
    expect((await widgets.list({ page: 1, pageSize: 10 }, 'GEAR')).total).to.equal(2);
    expect(
      (await widgets.list({ page: 1, pageSize: 10 }, 'navy')).items.map((w) => w.id),
      'any search field',
    ).to.deep.equal([blue!.id]);
    expect((await widgets.list({ page: 1, pageSize: 10 }, 'a.b')).items.map((w) => w.id)).to.deep.equal([dotted!.id]);
    expect((await widgets.list({ page: 1, pageSize: 10 }, 'a.')).total, 'a dot is not a wildcard').to.equal(1);
    expect((await widgets.list({ page: 1, pageSize: 10 }, '(')).total, 'nor is a parenthesis an error').to.equal(0);
    expect(
      (await widgets.list({ page: 1, pageSize: 10 }, 'gear', { name: 'red gear' })).total,
      'within the filter',
    ).to.equal(1);
  });

  it('updates only the given fields and answers the entity as it is now', async () => {
    const [gear] = await insert('gear');
    const updated = await widgets.update(gear!.id, { colour: 'green' });
    expect(updated).to.deep.equal({ ...gear, colour: 'green' });
    expect(await widgets.findById(gear!.id)).to.deep.equal(updated);
    expect(await collection.findOne({ _id: gear!.id }), 'private fields untouched').to.include({
      secretDigest: 'digest of gear',
    });
    expect(await widgets.update('missing', { colour: 'green' })).to.equal(null);
  });

  it('deletes and answers what was deleted, once', async () => {
    const [gear, other] = await insert('gear', 'other');
    expect(await widgets.delete(gear!.id)).to.deep.equal(gear);
    expect(await widgets.delete(gear!.id)).to.equal(null);
    expect(await widgets.findById(gear!.id)).to.equal(null);
    expect(await widgets.findById(other!.id)).to.deep.equal(other);
  });

  it('presents documents its own way when given a presenter', async () => {
    const { operations } = createEntityRepository<Widget>(store, 'shouting', {
      searchFields: ['name'],
      present: ({ _id, ...widget }) => ({ ...widget, name: widget.name.toUpperCase() }),
    });
    await operations.insert({ id: 's1', name: 'quiet', colour: null, createdAt: 1 });
    expect((await operations.findById('s1'))?.name).to.equal('QUIET');
    expect((await operations.list({ page: 1, pageSize: 5 }, 'QUI')).items.map((w) => w.name)).to.deep.equal(['QUIET']);
  });

  it('orders entities created in the same millisecond by id', async () => {
    for (const id of ['m3', 'm1', 'm2']) await widgets.insert({ id, name: id, colour: null, createdAt: 5_000 });
    expect((await widgets.list({ page: 1, pageSize: 10 })).items.map((w) => w.id)).to.deep.equal(['m1', 'm2', 'm3']);
    expect((await widgets.findByIds(['m2', 'm3', 'm1'])).map((w) => w.id)).to.deep.equal(['m1', 'm2', 'm3']);
  });
});
