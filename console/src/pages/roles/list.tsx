import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { ROLE_TYPES, roleTypeLabel, type Role, type RoleType } from './types.ts';

const PAGE_SIZE = 20;

export function RoleList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => apiList<Role>('/roles', { page, page_size: PAGE_SIZE, search: containing(query) }), [page, query]);
  return (
    <>
      <div class="page-head">
        <h1>Roles and permissions</h1>
        <button type="button" onClick={() => setCreating(true)}>Create role</button>
      </div>
      <p class="hint">A role is a set of permissions (API scopes). Users hold user roles; machine-to-machine applications hold machine-to-machine roles.</p>
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <TextField label="Search roles" type="search" value={search} onInput={setSearch} placeholder="Name, id or description" />
        <button type="submit" class="secondary">Search</button>
      </form>
      {list.error ? <ErrorText error={list.error} /> : !list.data ? <Loading what="roles" /> : (
        <>
          <Table
            caption="Roles" captionHidden rows={list.data.items} rowKey={(role) => role.id}
            empty={query ? 'No role matches.' : 'No roles yet.'}
            columns={[
              { header: 'Role', cell: (role) => <Link to={`/roles/${role.id}`}>{role.name}</Link> },
              { header: 'Type', cell: (role) => roleTypeLabel(role.type) },
              { header: 'Description', cell: (role) => role.description || '—' },
              { header: 'Held by', numeric: true, cell: (role) => (role.type === 'User' ? `${role.usersCount ?? 0} users` : `${role.applicationsCount ?? 0} applications`) },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      <Dialog title="Create role" open={creating} onClose={() => setCreating(false)}>
        <CreateRole onCancel={() => setCreating(false)} onCreated={(role) => { setCreating(false); navigate(`/roles/${role.id}`); }} />
      </Dialog>
    </>
  );
}

function CreateRole(props: { onCreated: (role: Role) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<RoleType>('User');
  const [isDefault, setIsDefault] = useState(false);
  const action = useAction();
  const fields = ['name', 'description', 'type', 'isDefault'];
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const role = await action.run(() => api<Role>('POST', '/roles', {
          body: { name, description, type, ...(type === 'User' && { isDefault }) },
        }));
        if (role) props.onCreated(role);
      }}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField label="Description" value={description} onInput={setDescription} error={action.fieldError('description')} />
      <SelectField label="Type" value={type} options={ROLE_TYPES} onChange={setType} error={action.fieldError('type')} />
      {type === 'User' && (
        <CheckboxField
          label="Default role" checked={isDefault} onChange={setIsDefault} error={action.fieldError('isDefault')}
          hint="Given to every new user."
        />
      )}
      <div class="actions">
        <button type="submit" disabled={action.pending}>Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
      </div>
      <ErrorText error={action.actionError(fields)} />
    </form>
  );
}
