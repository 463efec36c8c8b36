import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { ApiPermissions } from '../../components/api-permissions.tsx';
import { LinkedItems } from '../../components/linked.tsx';
import { UserPicker } from '../../components/user-picker.tsx';
import type { Application } from '../applications/types.ts';
import { displayName, type User } from '../users/types.ts';
import { navigate } from '../../router.ts';
import { roleTypeLabel, type Role } from './types.ts';

export function RoleDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const role = useLoad(() => api<Role>('GET', `/roles/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={role} back={{ to: '/roles', label: 'Roles and permissions' }} what="the role">
      {(current) => {
        const path = `/roles/${encodeURIComponent(current.id)}`;
        return (
          <>
            <RecordHeading
              title={current.name}
              facts={[
                ['Role ID', <code>{current.id}</code>],
                ['Type', roleTypeLabel(current.type)],
                ['Created', new Date(current.createdAt).toLocaleString()],
              ]}
            />
            <SettingsSection role={current} onSaved={role.set} key={`settings-${current.id}`} />
            <ApiPermissions
              path={`${path}/scopes`}
              title="Permissions"
              description="The API scopes this role grants."
              managementAllowed={current.type === 'MachineToMachine'}
            />
            {current.type === 'User' ? (
              <UsersSection path={path} roleId={current.id} />
            ) : (
              <ApplicationsSection path={path} />
            )}
            <DeleteSection
              what="role"
              name={current.name}
              description="Takes the role's permissions away from everyone holding it. This cannot be undone."
              consequence="Users and applications holding it lose its permissions at their next token."
              remove={() => api('DELETE', path)}
              onDeleted={() => navigate('/roles')}
            />
          </>
        );
      }}
    </DetailsPage>
  );
}

function SettingsSection(props: { role: Role; onSaved: (role: Role) => void }) {
  const { role } = props;
  const [name, setName] = useState(role.name);
  const [description, setDescription] = useState(role.description);
  const [isDefault, setIsDefault] = useState(role.isDefault);
  const action = useAction();
  const fields = ['name', 'description', 'isDefault'];
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={action.actionError(fields)}
        save={() =>
          api<Role>('PATCH', `/roles/${encodeURIComponent(role.id)}`, {
            body: { name, description, ...(role.type === 'User' && { isDefault }) },
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
        {role.type === 'User' && (
          <CheckboxField
            label="Default role"
            checked={isDefault}
            onChange={setIsDefault}
            error={action.fieldError('isDefault')}
            hint="Given to every new user."
          />
        )}
      </SaveForm>
    </Section>
  );
}

function UsersSection(props: { path: string; roleId: string }) {
  const users = useLoad(() => apiList<User>(`${props.path}/users`, { page_size: 100 }), [props.path]);
  return (
    <Section title="Users" description="Users holding this role get its permissions in their access tokens.">
      <LinkedItems
        linked={users}
        caption="Users holding this role"
        what="users"
        empty="No user holds this role."
        columns={[
          { header: 'User', cell: (user) => displayName(user) },
          { header: 'Email', cell: (user) => user.primaryEmail ?? '—' },
        ]}
        removeLabel={(user) => `Remove ${displayName(user)} from this role`}
        unlink={(user) => api('DELETE', `${props.path}/users/${encodeURIComponent(user.id)}`)}
      >
        <UserPicker
          label="Find users to assign"
          action="Assign to"
          exclude={{ excludeRoleId: props.roleId }}
          onPick={async (user) => {
            await api('POST', `${props.path}/users`, { body: { userIds: [user.id] } });
            users.reload();
          }}
        />
      </LinkedItems>
    </Section>
  );
}

function ApplicationsSection(props: { path: string }) {
  const held = useLoad(() => apiList<Application>(`${props.path}/applications`, { page_size: 100 }), [props.path]);
  const all = useLoad(() => apiList<Application>('/applications', { page_size: 100, types: 'MachineToMachine' }), []);
  return (
    <Section
      title="Applications"
      description="Machine-to-machine applications holding this role get its permissions with the client-credentials grant."
    >
      <LinkedItems
        linked={held}
        caption="Applications holding this role"
        what="applications"
        empty="No application holds this role."
        columns={[{ header: 'Application', cell: (app) => <Link to={`/applications/${app.id}`}>{app.name}</Link> }]}
        removeLabel={(app) => `Remove ${app.name} from this role`}
        unlink={(app) => api('DELETE', `${props.path}/applications/${encodeURIComponent(app.id)}`)}
        add={{
          label: 'Application to assign',
          button: 'Assign application',
          field: 'applicationIds',
          candidatesError: all.error,
          candidates: all.data?.items
            .filter((app) => app.type === 'MachineToMachine')
            .map((app) => ({ value: app.id, label: app.name })),
          link: (id) => api('POST', `${props.path}/applications`, { body: { applicationIds: [id] } }),
        }}
      />
    </Section>
  );
}
