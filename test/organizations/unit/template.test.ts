/** Organization template rules (roles, scopes and their links), on the embedded document store. */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { DomainError } from '../../../lib/errors.ts';
import {
  createOrganizationTemplateLibrary,
  type OrganizationTemplateLibrary,
} from '../../../lib/organizations/template.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { openRecords, prepareRecords } from '../../../app/capabilities.ts';

const PAGE = { page: 1, pageSize: 20 };

/** The domain error the operation fails with. */
async function refusal(operation: Promise<unknown>): Promise<DomainError> {
  try {
    await operation;
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected the operation to be refused');
}

describe('organization template (library)', () => {
  let store: DocumentStore;
  let template: OrganizationTemplateLibrary;

  beforeEach(async () => {
    store = createMemoryDocumentStore();
    const repositories = openRecords(store);
    await prepareRecords(repositories);
    template = createOrganizationTemplateLibrary({ ...repositories, emit: () => {} });
  });
  afterEach(() => store.close());

  const summary = (scope: { id: string; name: string }) => ({ id: scope.id, name: scope.name });

  it('creates a role of type User without a description unless told, with the given scopes', async () => {
    const read = await template.createScope({ name: 'read' });
    const role = await template.createRole({ name: 'viewer' }, [read.id]);
    expect(role).to.include({ name: 'viewer', description: null, type: 'User' });
    expect(await template.scopesOfRole(role.id)).to.deep.equal([read]);
    const machine = await template.createRole(
      { name: 'bot', description: 'for machines', type: 'MachineToMachine' },
      [],
    );
    expect(machine).to.include({ description: 'for machines', type: 'MachineToMachine' });
  });

  it('refuses a role with an unknown scope, naming it, and creates nothing', async () => {
    const read = await template.createScope({ name: 'read' });
    const refused = await refusal(template.createRole({ name: 'viewer' }, [read.id, 'missing-scope']));
    expect(refused.code, "Logto's code for a relation naming nothing").to.equal(
      'entity.relation_foreign_key_not_found',
    );
    expect(refused.message).to.include('missing-scope');
    expect((await template.listRoles(PAGE)).total).to.equal(0);
  });

  it('keeps role and scope names unique', async () => {
    const viewer = await template.createRole({ name: 'viewer' }, []);
    const editor = await template.createRole({ name: 'editor' }, []);
    expect((await refusal(template.createRole({ name: 'viewer' }, []))).code).to.equal(
      'entity.unique_integrity_violation',
    );
    expect((await refusal(template.updateRole(editor.id, { name: 'viewer' }))).code).to.equal(
      'entity.unique_integrity_violation',
    );
    expect(await template.updateRole(viewer.id, { name: 'viewer' }), 'its own name').to.include({ name: 'viewer' });

    const read = await template.createScope({ name: 'read' });
    await template.createScope({ name: 'write' });
    expect((await refusal(template.createScope({ name: 'read' }))).code).to.equal('entity.unique_integrity_violation');
    expect((await refusal(template.updateScope(read.id, { name: 'write' }))).code).to.equal(
      'entity.unique_integrity_violation',
    );
  });

  it('lists roles with the id and name of each of their scopes', async () => {
    const [read, write] = [await template.createScope({ name: 'read' }), await template.createScope({ name: 'write' })];
    const viewer = await template.createRole({ name: 'viewer' }, [read.id]);
    const editor = await template.createRole({ name: 'editor' }, [read.id, write.id]);
    const bare = await template.createRole({ name: 'bare' }, []);
    const { items, total } = await template.listRoles(PAGE);
    expect(total).to.equal(3);
    const scopesOf = (id: string) => items.find((role) => role.id === id)?.scopes;
    expect(scopesOf(viewer.id)).to.deep.equal([summary(read)]);
    expect(scopesOf(editor.id)).to.have.deep.members([summary(read), summary(write)]);
    expect(scopesOf(bare.id)).to.deep.equal([]);
    expect(
      (await template.listRoles(PAGE, 'EDIT')).items.map((role) => role.id),
      'searched by name',
    ).to.deep.equal([editor.id]);
  });

  it("adds, replaces and removes a role's scopes, checking each exists", async () => {
    const [read, write, admin] = [
      await template.createScope({ name: 'read' }),
      await template.createScope({ name: 'write' }),
      await template.createScope({ name: 'admin' }),
    ];
    const role = await template.createRole({ name: 'editor' }, [read.id]);
    expect(await template.addRoleScopes(role.id, [read.id, write.id])).to.have.deep.members([read, write]);
    expect((await refusal(template.addRoleScopes(role.id, ['missing']))).code).to.equal(
      'entity.relation_foreign_key_not_found',
    );
    expect(await template.replaceRoleScopes(role.id, [admin.id])).to.deep.equal([admin]);
    expect((await refusal(template.replaceRoleScopes(role.id, [read.id, 'missing']))).code).to.equal(
      'entity.relation_foreign_key_not_found',
    );
    expect(await template.scopesOfRole(role.id), 'a refused replacement changes nothing').to.deep.equal([admin]);
    expect(await template.removeRoleScope(role.id, admin.id)).to.deep.equal([]);
    const notLinked = await refusal(template.removeRoleScope(role.id, admin.id));
    expect(notLinked.code).to.equal('entity.not_found');
    expect(notLinked.message).to.include('organization role scope');
  });

  it('answers not found for an unknown role or scope on every operation', async () => {
    const read = await template.createScope({ name: 'read' });
    const operations = [
      () => template.mustFindRole('missing'),
      () => template.mustFindScope('missing'),
      () => template.updateRole('missing', { name: 'x' }),
      () => template.deleteRole('missing'),
      () => template.scopesOfRole('missing'),
      () => template.addRoleScopes('missing', [read.id]),
      () => template.replaceRoleScopes('missing', []),
      () => template.removeRoleScope('missing', read.id),
      () => template.updateScope('missing', { name: 'x' }),
      () => template.deleteScope('missing'),
    ];
    for (const operation of operations)
      expect((await refusal(operation())).code, String(operation)).to.equal('entity.not_exists_with_id');
  });

  it('takes a deleted scope out of every role, and a deleted role with its links', async () => {
    const [read, write] = [await template.createScope({ name: 'read' }), await template.createScope({ name: 'write' })];
    const viewer = await template.createRole({ name: 'viewer' }, [read.id]);
    const editor = await template.createRole({ name: 'editor' }, [read.id, write.id]);
    expect(await template.deleteScope(read.id)).to.deep.equal(read);
    expect(await template.scopesOfRole(viewer.id)).to.deep.equal([]);
    expect(await template.scopesOfRole(editor.id)).to.deep.equal([write]);

    expect(await template.deleteRole(editor.id)).to.deep.equal(editor);
    expect((await refusal(template.mustFindRole(editor.id))).code).to.equal('entity.not_exists_with_id');
    expect((await template.listRoles(PAGE)).items.map((role) => role.id)).to.deep.equal([viewer.id]);
  });
});
