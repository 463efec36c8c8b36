import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useAction } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { CreateForm, ListPage } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import type { Resource } from './types.ts';

export function ResourceList() {
  return (
    <ListPage
      title="API resources"
      createLabel="Create API resource"
      what="API resources"
      hint="An API resource is an API your applications call with access tokens: its identifier is the tokens' audience, its scopes are the permissions roles grant."
      search={{ label: 'Search API resources', placeholder: 'Name or identifier' }}
      empty={{ none: 'No API resources yet.', noMatch: 'No API resource matches.' }}
      load={(query, paging) => apiList<Resource>('/resources', { ...paging, search: containing(query) })}
      columns={[
        { header: 'Name', cell: (resource) => <Link to={`/resources/${resource.id}`}>{resource.name}</Link> },
        { header: 'Identifier', cell: (resource) => <code>{resource.indicator}</code> },
        { header: 'Default', cell: (resource) => (resource.isDefault ? 'Yes' : 'No') },
        { header: 'Token lifetime', numeric: true, cell: (resource) => `${resource.accessTokenTtl} s` },
      ]}
      create={({ open, close }) => (
        <Dialog title="Create API resource" open={open} onClose={close}>
          <CreateResource
            onCancel={close}
            onCreated={(resource) => {
              close();
              navigate(`/resources/${resource.id}`);
            }}
          />
        </Dialog>
      )}
    />
  );
}

function CreateResource(props: { onCreated: (resource: Resource) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [indicator, setIndicator] = useState('');
  const [ttl, setTtl] = useState('');
  const action = useAction();
  const fields = ['name', 'indicator', 'accessTokenTtl'];
  return (
    <CreateForm
      action={action}
      error={action.actionError(fields)}
      onCancel={props.onCancel}
      create={() =>
        api<Resource>('POST', '/resources', {
          body: { name, indicator, ...(ttl.trim() && { accessTokenTtl: Number(ttl) }) },
        })
      }
      onCreated={props.onCreated}
    >
      <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField
        label="API identifier"
        type="url"
        value={indicator}
        onInput={setIndicator}
        required
        error={action.fieldError('indicator')}
        placeholder="https://api.example.com"
        hint="An absolute URI without a fragment: the resource indicator and the tokens' audience. It cannot change later."
      />
      <TextField
        label="Access token lifetime (seconds)"
        type="number"
        inputMode="numeric"
        min="60"
        max="86400"
        value={ttl}
        onInput={setTtl}
        error={action.fieldError('accessTokenTtl')}
        hint="60 to 86400. Empty: the service's default."
      />
    </CreateForm>
  );
}
