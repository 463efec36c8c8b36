import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { SecretBox } from '../../components/secret.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { APPLICATION_TYPES, typeLabel, type Application, type ApplicationType } from './types.ts';

const PAGE_SIZE = 20;

export function ApplicationList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => apiList<Application>('/applications', { page, page_size: PAGE_SIZE, search: containing(query) }), [page, query]);

  return (
    <>
      <div class="page-head">
        <h1>Applications</h1>
        <button type="button" onClick={() => setCreating(true)}>Create application</button>
      </div>
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <TextField label="Search applications" type="search" value={search} onInput={setSearch} placeholder="Name, id or description" />
        <button type="submit" class="secondary">Search</button>
      </form>
      {list.error ? <ErrorText error={list.error} /> : !list.data ? <Loading what="applications" /> : (
        <>
          <Table
            caption="Applications" captionHidden rows={list.data.items} rowKey={(app) => app.id}
            empty={query ? 'No application matches.' : 'No applications yet.'}
            columns={[
              { header: 'Name', cell: (app) => <Link to={`/applications/${app.id}`}>{app.name}</Link> },
              { header: 'Type', cell: (app) => typeLabel(app.type) },
              { header: 'Client ID', cell: (app) => <code>{app.id}</code> },
              { header: 'Third-party', cell: (app) => (app.isThirdParty ? 'Yes' : 'No') },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      <CreateApplication open={creating} onClose={() => { setCreating(false); list.reload(); }} />
    </>
  );
}

function CreateApplication(props: { open: boolean; onClose: () => void }) {
  return (
    <Dialog title="Create application" open={props.open} onClose={props.onClose}>
      <CreateForm onClose={props.onClose} />
    </Dialog>
  );
}

function CreateForm(props: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<ApplicationType>('Traditional');
  const [description, setDescription] = useState('');
  const [thirdParty, setThirdParty] = useState(false);
  const [created, setCreated] = useState<Application>();
  const action = useAction();

  if (created) {
    return (
      <div>
        <p class="notice" role="status">Application <strong>{created.name}</strong> created.</p>
        <SecretBox label="Client ID" value={created.id} note="Public: the application sends it with every request." />
        {created.secret && <SecretBox label="Client secret" value={created.secret} />}
        <div class="actions">
          <button type="button" onClick={() => { props.onClose(); navigate(`/applications/${created.id}`); }}>Open application</button>
          <button type="button" class="secondary" onClick={props.onClose}>Done</button>
        </div>
      </div>
    );
  }
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const app = await action.run(() => api<Application>('POST', '/applications', {
          body: { name, type, ...(description && { description }), isThirdParty: thirdParty },
        }));
        if (app) setCreated(app);
      }}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <SelectField label="Type" value={type} options={APPLICATION_TYPES} onChange={setType} error={action.fieldError('type')} />
      <TextField label="Description" value={description} onInput={setDescription} error={action.fieldError('description')} />
      <CheckboxField
        label="Third-party application" checked={thirdParty} onChange={setThirdParty} error={action.fieldError('isThirdParty')}
        hint="Another organisation's app: users are asked for consent, and it can never use token exchange."
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>Create</button>
        <button type="button" class="secondary" onClick={props.onClose}>Cancel</button>
      </div>
      <ErrorText error={action.actionError(['name', 'type', 'description', 'isThirdParty'])} />
    </form>
  );
}
