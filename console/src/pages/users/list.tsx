import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useAction } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { CreateForm, ListPage } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import { conflictFor, displayName, passwordProblems, shownAtField, type User } from './types.ts';

export function UserList() {
  return (
    <ListPage
      title="Users"
      createLabel="Create user"
      what="users"
      search={{ label: 'Search users', placeholder: 'Name, username, email, phone or id' }}
      empty={{ none: 'No users yet.', noMatch: 'No user matches.' }}
      load={(query, paging) => apiList<User>('/users', { ...paging, search: containing(query) })}
      columns={[
        { header: 'User', cell: (user) => <Link to={`/users/${user.id}`}>{displayName(user)}</Link> },
        { header: 'Username', cell: (user) => user.username ?? '—' },
        { header: 'Email', cell: (user) => user.primaryEmail ?? '—' },
        { header: 'Status', cell: (user) => (user.isSuspended ? 'Suspended' : 'Active') },
        { header: 'Created', cell: (user) => new Date(user.createdAt).toLocaleDateString() },
      ]}
      create={({ open, close, reload }) => (
        <Dialog
          title="Create user"
          open={open}
          onClose={() => {
            close();
            reload();
          }}
        >
          <CreateUser
            onCreated={(user) => {
              close();
              navigate(`/users/${user.id}`);
            }}
            onCancel={close}
          />
        </Dialog>
      )}
    />
  );
}

function CreateUser(props: { onCreated: (user: User) => void; onCancel: () => void }) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const fields = ['username', 'primaryEmail', 'primaryPhone', 'name', 'password'];
  return (
    <CreateForm
      action={action}
      error={shownAtField(action.error) ? undefined : action.actionError(fields)}
      onCancel={props.onCancel}
      create={() =>
        api<User>('POST', '/users', {
          body: {
            ...(username && { username }),
            ...(email && { primaryEmail: email }),
            ...(phone && { primaryPhone: phone }),
            ...(name && { name }),
            ...(password && { password }),
          },
        })
      }
      onCreated={props.onCreated}
    >
      <p class="hint">Give at least one of username, email and phone: it is how the user signs in.</p>
      <TextField
        label="Username"
        value={username}
        onInput={setUsername}
        autoComplete="off"
        error={action.fieldError('username') ?? conflictFor(action.error, 'username')}
      />
      <TextField
        label="Email"
        type="email"
        value={email}
        onInput={setEmail}
        autoComplete="off"
        error={action.fieldError('primaryEmail') ?? conflictFor(action.error, 'primaryEmail')}
      />
      <TextField
        label="Phone"
        value={phone}
        onInput={setPhone}
        inputMode="numeric"
        autoComplete="off"
        hint="Digits only, with the country code (E.164 without +)."
        error={action.fieldError('primaryPhone') ?? conflictFor(action.error, 'primaryPhone')}
      />
      <TextField label="Name" value={name} onInput={setName} autoComplete="off" error={action.fieldError('name')} />
      <TextField
        label="Password"
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete="new-password"
        hint="Optional: without one, the user signs in with a code or sets a password through “Forgot password”."
        error={action.fieldError('password') ?? passwordProblems(action.error)}
      />
    </CreateForm>
  );
}
