import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { Switch, TextField } from '../../components/field.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import type { Resource, Scope } from './types.ts';

const SCOPE_PAGE_SIZE = 50;

export function ResourceDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const resource = useLoad(() => api<Resource>('GET', `/resources/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={resource} back={{ to: '/resources', label: 'API resources' }} what="the API resource">
      {(current) => {
        const path = `/resources/${encodeURIComponent(current.id)}`;
        return (
          <>
            <RecordHeading
              title={current.name}
              facts={[
                ['API identifier', <code>{current.indicator}</code>],
                ['Resource ID', <code>{current.id}</code>],
                ['Created', new Date(current.createdAt).toLocaleString()],
              ]}
            />
            <SettingsSection resource={current} onSaved={resource.set} key={`settings-${current.id}`} />
            <ScopesSection path={path} />
            <DeleteSection
              what="API resource"
              name={current.name}
              description="Deletes the resource and its scopes, and takes those permissions out of every role. This cannot be undone."
              consequence="Tokens for it can no longer be requested; roles lose its permissions."
              remove={() => api('DELETE', path)}
              onDeleted={() => navigate('/resources')}
            />
          </>
        );
      }}
    </DetailsPage>
  );
}

function SettingsSection(props: { resource: Resource; onSaved: (resource: Resource) => void }) {
  const { resource } = props;
  const path = `/resources/${encodeURIComponent(resource.id)}`;
  const [name, setName] = useState(resource.name);
  const [ttl, setTtl] = useState(String(resource.accessTokenTtl));
  const action = useAction();
  const makeDefault = useAction();
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={action.actionError(['name', 'accessTokenTtl'])}
        save={() => api<Resource>('PATCH', path, { body: { name, accessTokenTtl: Number(ttl) } })}
        onSaved={props.onSaved}
      >
        <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
        <TextField
          label="Access token lifetime (seconds)"
          type="number"
          inputMode="numeric"
          min="60"
          max="86400"
          value={ttl}
          onInput={setTtl}
          error={action.fieldError('accessTokenTtl')}
          hint="60 to 86400."
        />
      </SaveForm>
      <Switch
        label="Default API resource"
        checked={resource.isDefault}
        busy={makeDefault.pending}
        description="Token requests that name no resource get tokens for this one. Only one resource is the default."
        error={makeDefault.error ? (makeDefault.error as Error).message : undefined}
        onChange={async (checked) => {
          const updated = await makeDefault.run(() =>
            api<Resource>('PATCH', `${path}/is-default`, { body: { isDefault: checked } }),
          );
          if (updated) props.onSaved(updated);
        }}
      />
    </Section>
  );
}

function ScopesSection(props: { path: string }) {
  const [page, setPage] = useState(1);
  const scopes = useLoad(
    () => apiList<Scope>(`${props.path}/scopes`, { page, page_size: SCOPE_PAGE_SIZE }),
    [props.path, page],
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [editing, setEditing] = useState<Scope>();
  const add = useAction();
  const remove = useAction();
  return (
    <Section
      title="Scopes"
      description="The permissions of this API: roles grant them, and access tokens carry them in their scope."
    >
      {scopes.error ? (
        <ErrorText error={scopes.error} />
      ) : !scopes.data ? (
        <Loading what="scopes" />
      ) : (
        <>
          <Table
            caption="Scopes of this API resource"
            captionHidden
            rows={scopes.data.items}
            rowKey={(scope) => scope.id}
            empty="No scopes yet."
            columns={[
              { header: 'Scope', cell: (scope) => <code>{scope.name}</code> },
              { header: 'Description', cell: (scope) => scope.description || '—' },
              {
                header: 'Actions',
                numeric: true,
                cell: (scope) => (
                  <>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Edit scope ${scope.name}`}
                      onClick={() => setEditing(scope)}
                    >
                      Edit
                    </button>{' '}
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Delete scope ${scope.name}`}
                      disabled={remove.pending}
                      onClick={async () => {
                        await remove.run(() => api('DELETE', `${props.path}/scopes/${encodeURIComponent(scope.id)}`));
                        scopes.reload();
                      }}
                    >
                      Delete
                    </button>
                  </>
                ),
              },
            ]}
          />
          <Pager page={page} pageSize={SCOPE_PAGE_SIZE} total={scopes.data.total} onPage={setPage} />
        </>
      )}
      <ErrorText error={remove.error} />
      <form
        class="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const created = await add.run(() =>
            api<Scope>('POST', `${props.path}/scopes`, { body: { name, ...(description && { description }) } }),
          );
          if (created) {
            setName('');
            setDescription('');
            scopes.reload();
          }
        }}
      >
        <h3>Add a scope</h3>
        <TextField
          label="Scope name"
          value={name}
          onInput={setName}
          required
          error={add.fieldError('name')}
          placeholder="read:orders"
        />
        <TextField
          label="Scope description"
          value={description}
          onInput={setDescription}
          error={add.fieldError('description')}
        />
        <div class="actions">
          <button type="submit" class="secondary" disabled={add.pending}>
            Add scope
          </button>
        </div>
        <ErrorText error={add.actionError(['name', 'description'])} />
      </form>
      <Dialog
        title={editing ? `Edit scope ${editing.name}` : 'Edit scope'}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing && (
          <EditScope
            path={`${props.path}/scopes/${encodeURIComponent(editing.id)}`}
            scope={editing}
            onDone={() => {
              setEditing(undefined);
              scopes.reload();
            }}
          />
        )}
      </Dialog>
    </Section>
  );
}

function EditScope(props: { path: string; scope: Scope; onDone: () => void }) {
  const [name, setName] = useState(props.scope.name);
  const [description, setDescription] = useState(props.scope.description ?? '');
  const action = useAction();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const updated = await action.run(() =>
          api<Scope>('PATCH', props.path, { body: { name, description: description || null } }),
        );
        if (updated) props.onDone();
      }}
    >
      <TextField label="Scope name" value={name} onInput={setName} required error={action.fieldError('name')} />
      <TextField
        label="Scope description"
        value={description}
        onInput={setDescription}
        error={action.fieldError('description')}
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>
          Save scope
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Cancel
        </button>
      </div>
      <ErrorText error={action.actionError(['name', 'description'])} />
    </form>
  );
}
