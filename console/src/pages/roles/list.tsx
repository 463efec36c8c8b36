import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useAction } from '../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { CreateForm, ListPage } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import { ROLE_TYPES, roleTypeLabel, type Role, type RoleType } from './types.ts';

export function RoleList() {
  return (
    <ListPage
      title="Roles and permissions"
      caption="Roles"
      createLabel="Create role"
      what="roles"
      hint="A role is a set of permissions (API scopes). Users hold user roles; machine-to-machine applications hold machine-to-machine roles."
      search={{ label: 'Search roles', placeholder: 'Name, id or description' }}
      empty={{ none: 'No roles yet.', noMatch: 'No role matches.' }}
      load={(query, paging) => apiList<Role>('/roles', { ...paging, search: containing(query) })}
      columns={[
        { header: 'Role', cell: (role) => <Link to={`/roles/${role.id}`}>{role.name}</Link> },
        { header: 'Type', cell: (role) => roleTypeLabel(role.type) },
        { header: 'Description', cell: (role) => role.description || '—' },
        {
          header: 'Held by',
          numeric: true,
          cell: (role) =>
            role.type === 'User' ? `${role.usersCount ?? 0} users` : `${role.applicationsCount ?? 0} applications`,
        },
      ]}
      create={({ open, close }) => (
        <Dialog title="Create role" open={open} onClose={close}>
          <CreateRole
            onCancel={close}
            onCreated={(role) => {
              close();
              navigate(`/roles/${role.id}`);
            }}
          />
        </Dialog>
      )}
    />
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
    <CreateForm
      action={action}
      error={action.actionError(fields)}
      onCancel={props.onCancel}
      create={() =>
        api<Role>('POST', '/roles', {
          body: { name, description, type, ...(type === 'User' && { isDefault }) },
        })
      }
      onCreated={props.onCreated}
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
        options={ROLE_TYPES}
        onChange={setType}
        error={action.fieldError('type')}
      />
      {type === 'User' && (
        <CheckboxField
          label="Default role"
          checked={isDefault}
          onChange={setIsDefault}
          error={action.fieldError('isDefault')}
          hint="Given to every new user."
        />
      )}
    </CreateForm>
  );
}
