import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import type { Organization } from './types.ts';

const PAGE_SIZE = 20;

export function OrganizationList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(
    () => apiList<Organization & { usersCount?: number }>('/organizations', { page, page_size: PAGE_SIZE, q: query || undefined, showFeatured: 'true' }),
    [page, query],
  );
  return (
    <>
      <div class="page-head">
        <h1>Organizations</h1>
        <button type="button" onClick={() => setCreating(true)}>Create organization</button>
      </div>
      <p class="hint">
        Organizations group users (your customers' teams) with their own roles. Their roles and permissions come from
        the <Link to="/organization-template">organization template</Link>.
      </p>
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <TextField label="Search organizations" type="search" value={search} onInput={setSearch} placeholder="Name, id or description" />
        <button type="submit" class="secondary">Search</button>
      </form>
      {list.error ? <ErrorText error={list.error} /> : !list.data ? <Loading what="organizations" /> : (
        <>
          <Table
            caption="Organizations" captionHidden rows={list.data.items} rowKey={(organization) => organization.id}
            empty={query ? 'No organization matches.' : 'No organizations yet.'}
            columns={[
              { header: 'Name', cell: (organization) => <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> },
              { header: 'Description', cell: (organization) => organization.description || '—' },
              { header: 'Members', numeric: true, cell: (organization) => String(organization.usersCount ?? '—') },
              { header: 'Created', cell: (organization) => new Date(organization.createdAt).toLocaleDateString() },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      <Dialog title="Create organization" open={creating} onClose={() => setCreating(false)}>
        <CreateOrganization onCancel={() => setCreating(false)} onCreated={(organization) => { setCreating(false); navigate(`/organizations/${organization.id}`); }} />
      </Dialog>
    </>
  );
}

function CreateOrganization(props: { onCreated: (organization: Organization) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const organization = await action.run(() => api<Organization>('POST', '/organizations', {
          body: { name, ...(description && { description }) },
        }));
        if (organization) props.onCreated(organization);
      }}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField label="Description" value={description} onInput={setDescription} error={action.fieldError('description')} />
      <div class="actions">
        <button type="submit" disabled={action.pending}>Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
      </div>
      <ErrorText error={action.actionError(['name', 'description'])} />
    </form>
  );
}
