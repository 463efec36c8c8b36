import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ApiPermissions } from '../../components/api-permissions.tsx';
import { DeleteSection } from '../../components/delete.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import type { OrganizationRole, OrganizationScope } from '../organizations/types.ts';

export function OrganizationRoleDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const role = useLoad(() => api<OrganizationRole>('GET', `/organization-roles/${encodeURIComponent(id)}`), [id]);
  const back = <p><Link to="/organization-template">← Organization template</Link></p>;
  if (role.error) return <>{back}<ErrorText error={role.error} /></>;
  if (!role.data) return <Loading what="the organization role" />;
  const current = role.data;
  const path = `/organization-roles/${encodeURIComponent(current.id)}`;
  return (
    <>
      {back}
      <div class="page-head"><h1>{current.name}</h1></div>
      <dl class="facts">
        <dt>Organization role ID</dt><dd><code>{current.id}</code></dd>
        <dt>Type</dt><dd>{current.type === 'User' ? 'User (members)' : 'Machine-to-machine (applications)'}</dd>
      </dl>
      <SettingsSection role={current} onSaved={role.set} key={`settings-${current.id}`} />
      <OrganizationPermissions path={`${path}/scopes`} />
      <ApiPermissions
        path={`${path}/resource-scopes`} title="API permissions" managementAllowed={false}
        description="API resource scopes this role grants in organization tokens."
      />
      <DeleteSection
        what="organization role" name={current.name} description="Takes this role away from every member in every organization. This cannot be undone."
        consequence="Members holding it lose its permissions in their next organization token."
        remove={() => api('DELETE', path)} onDeleted={() => navigate('/organization-template')}
      />
    </>
  );
}

function SettingsSection(props: { role: OrganizationRole; onSaved: (role: OrganizationRole) => void }) {
  const { role } = props;
  const [name, setName] = useState(role.name);
  const [description, setDescription] = useState(role.description ?? '');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  return (
    <Section title="Settings">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          const updated = await action.run(() => api<OrganizationRole>('PATCH', `/organization-roles/${encodeURIComponent(role.id)}`, {
            body: { name, description: description || null },
          }));
          if (updated) {
            props.onSaved(updated);
            setSaved(true);
          }
        }}
      >
        <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
        <TextField label="Description" value={description} onInput={setDescription} error={action.fieldError('description')} />
        <div class="actions">
          <button type="submit" disabled={action.pending}>Save settings</button>
          <span role="status" class="status">{saved ? 'Saved.' : ''}</span>
        </div>
        <ErrorText error={action.actionError(['name', 'description'])} />
      </form>
    </Section>
  );
}

function OrganizationPermissions(props: { path: string }) {
  const held = useLoad(() => apiList<OrganizationScope>(props.path), [props.path]);
  const all = useLoad(() => apiList<OrganizationScope>('/organization-scopes', { page_size: 100 }), []);
  const [choice, setChoice] = useState('');
  const add = useAction();
  const remove = useAction();
  const heldIds = new Set(held.data?.items.map((scope) => scope.id));
  const options = (all.data?.items ?? []).filter((scope) => !heldIds.has(scope.id)).map((scope) => ({ value: scope.id, label: scope.name }));
  const selected = options.some((option) => option.value === choice) ? choice : options[0]?.value ?? '';
  return (
    <Section title="Organization permissions" description="Organization scopes this role grants.">
      {held.error ? <ErrorText error={held.error} /> : !held.data ? <Loading what="organization permissions" /> : (
        <Table
          caption="Organization permissions of this role" captionHidden rows={held.data.items} rowKey={(scope) => scope.id} empty="No organization permissions yet."
          columns={[
            { header: 'Permission', cell: (scope) => <code>{scope.name}</code> },
            { header: 'Description', cell: (scope) => scope.description || '—' },
            {
              header: 'Actions', numeric: true,
              cell: (scope) => (
                <button
                  type="button" class="secondary small" aria-label={`Remove organization permission ${scope.name}`} disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${props.path}/${encodeURIComponent(scope.id)}`));
                    held.reload();
                  }}
                >
                  Remove
                </button>
              ),
            },
          ]}
        />
      )}
      <ErrorText error={remove.error} />
      {all.error ? <ErrorText error={all.error} /> : options.length === 0 ? (
        <p class="hint">{all.data ? <>No other organization permission to add: define them in the <Link to="/organization-template">organization template</Link>.</> : ''}</p>
      ) : (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            await add.run(() => api('POST', props.path, { body: { organizationScopeIds: [selected] } }));
            held.reload();
          }}
        >
          <SelectField label="Organization permission to add" value={selected} onChange={setChoice} options={options} error={add.fieldError('organizationScopeIds')} />
          <div class="actions"><button type="submit" class="secondary" disabled={add.pending}>Add organization permission</button></div>
          <ErrorText error={add.actionError(['organizationScopeIds'])} />
        </form>
      )}
    </Section>
  );
}
