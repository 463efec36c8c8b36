import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import type { Resource } from './types.ts';

const PAGE_SIZE = 20;

export function ResourceList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => apiList<Resource>('/resources', { page, page_size: PAGE_SIZE, search: containing(query) }), [page, query]);
  return (
    <>
      <div class="page-head">
        <h1>API resources</h1>
        <button type="button" onClick={() => setCreating(true)}>Create API resource</button>
      </div>
      <p class="hint">An API resource is an API your applications call with access tokens: its identifier is the tokens' audience, its scopes are the permissions roles grant.</p>
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <TextField label="Search API resources" type="search" value={search} onInput={setSearch} placeholder="Name or identifier" />
        <button type="submit" class="secondary">Search</button>
      </form>
      {list.error ? <ErrorText error={list.error} /> : !list.data ? <Loading what="API resources" /> : (
        <>
          <Table
            caption="API resources" captionHidden rows={list.data.items} rowKey={(resource) => resource.id}
            empty={query ? 'No API resource matches.' : 'No API resources yet.'}
            columns={[
              { header: 'Name', cell: (resource) => <Link to={`/resources/${resource.id}`}>{resource.name}</Link> },
              { header: 'Identifier', cell: (resource) => <code>{resource.indicator}</code> },
              { header: 'Default', cell: (resource) => (resource.isDefault ? 'Yes' : 'No') },
              { header: 'Token lifetime', numeric: true, cell: (resource) => `${resource.accessTokenTtl} s` },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      <Dialog title="Create API resource" open={creating} onClose={() => setCreating(false)}>
        <CreateResource onCancel={() => setCreating(false)} onCreated={(resource) => { setCreating(false); navigate(`/resources/${resource.id}`); }} />
      </Dialog>
    </>
  );
}

function CreateResource(props: { onCreated: (resource: Resource) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [indicator, setIndicator] = useState('');
  const [ttl, setTtl] = useState('');
  const action = useAction();
  const fields = ['name', 'indicator', 'accessTokenTtl'];
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const resource = await action.run(() => api<Resource>('POST', '/resources', {
          body: { name, indicator, ...(ttl.trim() && { accessTokenTtl: Number(ttl) }) },
        }));
        if (resource) props.onCreated(resource);
      }}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField
        label="API identifier" type="url" value={indicator} onInput={setIndicator} required error={action.fieldError('indicator')}
        placeholder="https://api.example.com" hint="An absolute URI without a fragment: the resource indicator and the tokens' audience. It cannot change later."
      />
      <TextField
        label="Access token lifetime (seconds)" type="number" inputMode="numeric" min="60" max="86400" value={ttl} onInput={setTtl}
        error={action.fieldError('accessTokenTtl')} hint="60 to 86400. Empty: the service's default."
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
      </div>
      <ErrorText error={action.actionError(fields)} />
    </form>
  );
}
