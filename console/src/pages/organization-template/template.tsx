import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import type { OrganizationRole, OrganizationScope } from '../organizations/types.ts';

/** The roles and permissions every organization shares. */
export function OrganizationTemplate() {
  return (
    <>
      <div class="page-head">
        <h1>Organization template</h1>
      </div>
      <p class="hint">
        Every <Link to="/organizations">organization</Link> shares these roles and permissions: a member holds roles in
        each organization, and organization tokens carry the permissions of those roles.
      </p>
      <RolesSection />
      <PermissionsSection />
    </>
  );
}

function RolesSection() {
  const roles = useLoad(() => apiList<OrganizationRole>('/organization-roles', { page_size: 100 }), []);
  const [creating, setCreating] = useState(false);
  return (
    <Section title="Organization roles">
      <div class="actions">
        <button type="button" onClick={() => setCreating(true)}>
          Create organization role
        </button>
      </div>
      <div class="inline-form">
        {roles.error ? (
          <ErrorText error={roles.error} />
        ) : !roles.data ? (
          <Loading what="organization roles" />
        ) : (
          <Table
            caption="Organization roles"
            captionHidden
            rows={roles.data.items}
            rowKey={(role) => role.id}
            empty="No organization roles yet."
            columns={[
              {
                header: 'Role',
                cell: (role) => <Link to={`/organization-template/roles/${role.id}`}>{role.name}</Link>,
              },
              { header: 'Type', cell: (role) => (role.type === 'User' ? 'User' : 'Machine-to-machine') },
              {
                header: 'Permissions',
                cell: (role) =>
                  [
                    ...(role.scopes ?? []).map((scope) => scope.name),
                    ...(role.resourceScopes ?? []).map((scope) => `${scope.resource.name}: ${scope.name}`),
                  ].join(', ') || '—',
              },
            ]}
          />
        )}
      </div>
      <Dialog title="Create organization role" open={creating} onClose={() => setCreating(false)}>
        <CreateRole
          onCancel={() => setCreating(false)}
          onCreated={(role) => {
            setCreating(false);
            navigate(`/organization-template/roles/${role.id}`);
          }}
        />
      </Dialog>
    </Section>
  );
}

function CreateRole(props: { onCreated: (role: OrganizationRole) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<OrganizationRole['type']>('User');
  const action = useAction();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const role = await action.run(() =>
          api<OrganizationRole>('POST', '/organization-roles', {
            body: { name, type, ...(description && { description }) },
          }),
        );
        if (role) props.onCreated(role);
      }}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField
        label="Description"
        value={description}
        onInput={setDescription}
        error={action.fieldError('description')}
      />
      <SelectField
        label="Type"
        value={type}
        onChange={setType}
        error={action.fieldError('type')}
        options={[
          { value: 'User', label: 'User (members)' },
          { value: 'MachineToMachine', label: 'Machine-to-machine (applications)' },
        ]}
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>
          Create
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <ErrorText error={action.actionError(['name', 'description', 'type'])} />
    </form>
  );
}

function PermissionsSection() {
  const scopes = useLoad(() => apiList<OrganizationScope>('/organization-scopes', { page_size: 100 }), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const add = useAction();
  const remove = useAction();
  return (
    <Section
      title="Organization permissions"
      description="Scopes that organization roles grant, such as invite:member."
    >
      {scopes.error ? (
        <ErrorText error={scopes.error} />
      ) : !scopes.data ? (
        <Loading what="organization permissions" />
      ) : (
        <Table
          caption="Organization permissions"
          captionHidden
          rows={scopes.data.items}
          rowKey={(scope) => scope.id}
          empty="No organization permissions yet."
          columns={[
            { header: 'Permission', cell: (scope) => <code>{scope.name}</code> },
            { header: 'Description', cell: (scope) => scope.description || '—' },
            {
              header: 'Actions',
              numeric: true,
              cell: (scope) => (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Delete permission ${scope.name}`}
                  disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `/organization-scopes/${encodeURIComponent(scope.id)}`));
                    scopes.reload();
                  }}
                >
                  Delete
                </button>
              ),
            },
          ]}
        />
      )}
      <ErrorText error={remove.error} />
      <form
        class="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const created = await add.run(() =>
            api('POST', '/organization-scopes', { body: { name, ...(description && { description }) } }),
          );
          if (created) {
            setName('');
            setDescription('');
            scopes.reload();
          }
        }}
      >
        <h3>Add a permission</h3>
        <TextField
          label="Permission name"
          value={name}
          onInput={setName}
          required
          error={add.fieldError('name')}
          placeholder="invite:member"
        />
        <TextField
          label="Permission description"
          value={description}
          onInput={setDescription}
          error={add.fieldError('description')}
        />
        <div class="actions">
          <button type="submit" class="secondary" disabled={add.pending}>
            Add permission
          </button>
        </div>
        <ErrorText error={add.actionError(['name', 'description'])} />
      </form>
    </Section>
  );
}
