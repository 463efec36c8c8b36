import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ApiPermissions } from '../../components/api-permissions.tsx';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { Section, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { LinkedItems } from '../../components/linked.tsx';
import { Link } from '../../components/link.tsx';
import { navigate } from '../../router.ts';
import type { OrganizationRole, OrganizationScope } from '../organizations/types.ts';

export function OrganizationRoleDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const role = useLoad(() => api<OrganizationRole>('GET', `/organization-roles/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage
      record={role}
      back={{ to: '/organization-template', label: 'Organization template' }}
      what="the organization role"
    >
      {(current) => {
        const path = `/organization-roles/${encodeURIComponent(current.id)}`;
        return (
          <>
            <RecordHeading
              title={current.name}
              facts={[
                ['Organization role ID', <code>{current.id}</code>],
                ['Type', current.type === 'User' ? 'User (members)' : 'Machine-to-machine (applications)'],
              ]}
            />
            <SettingsSection role={current} onSaved={role.set} key={`settings-${current.id}`} />
            <OrganizationPermissions path={`${path}/scopes`} />
            <ApiPermissions
              path={`${path}/resource-scopes`}
              title="API permissions"
              managementAllowed={false}
              description="API resource scopes this role grants in organization tokens."
            />
            <DeleteSection
              what="organization role"
              name={current.name}
              description="Takes this role away from every member in every organization. This cannot be undone."
              consequence="Members holding it lose its permissions in their next organization token."
              remove={() => api('DELETE', path)}
              onDeleted={() => navigate('/organization-template')}
            />
          </>
        );
      }}
    </DetailsPage>
  );
}

function SettingsSection(props: { role: OrganizationRole; onSaved: (role: OrganizationRole) => void }) {
  const { role } = props;
  const [name, setName] = useState(role.name);
  const [description, setDescription] = useState(role.description ?? '');
  const action = useAction();
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={action.actionError(['name', 'description'])}
        save={() =>
          api<OrganizationRole>('PATCH', `/organization-roles/${encodeURIComponent(role.id)}`, {
            body: { name, description: description || null },
          })
        }
        onSaved={props.onSaved}
      >
        <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
        <TextField
          label="Description"
          value={description}
          onInput={setDescription}
          error={action.fieldError('description')}
        />
      </SaveForm>
    </Section>
  );
}

function OrganizationPermissions(props: { path: string }) {
  const held = useLoad(() => apiList<OrganizationScope>(props.path), [props.path]);
  const all = useLoad(() => apiList<OrganizationScope>('/organization-scopes', { page_size: 100 }), []);
  return (
    <Section title="Organization permissions" description="Organization scopes this role grants.">
      <LinkedItems
        linked={held}
        caption="Organization permissions of this role"
        what="organization permissions"
        empty="No organization permissions yet."
        columns={[
          { header: 'Permission', cell: (scope) => <code>{scope.name}</code> },
          { header: 'Description', cell: (scope) => scope.description || '—' },
        ]}
        removeLabel={(scope) => `Remove organization permission ${scope.name}`}
        unlink={(scope) => api('DELETE', `${props.path}/${encodeURIComponent(scope.id)}`)}
        add={{
          label: 'Organization permission to add',
          button: 'Add organization permission',
          field: 'organizationScopeIds',
          candidates: all.data?.items.map((scope) => ({ value: scope.id, label: scope.name })),
          candidatesError: all.error,
          none: (
            <>
              No other organization permission to add: define them in the{' '}
              <Link to="/organization-template">organization template</Link>.
            </>
          ),
          link: (id) => api('POST', props.path, { body: { organizationScopeIds: [id] } }),
        }}
      />
    </Section>
  );
}
