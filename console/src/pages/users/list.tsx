import { useState } from 'preact/hooks';
import { api, apiList, containing } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { conflictFor, displayName, passwordProblems, shownAtField, type User } from './types.ts';

const PAGE_SIZE = 20;

export function UserList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => apiList<User>('/users', { page, page_size: PAGE_SIZE, search: containing(query) }), [page, query]);
  return (
    <>
      <div class="page-head">
        <h1>Users</h1>
        <button type="button" onClick={() => setCreating(true)}>Create user</button>
      </div>
      <form class="search" role="search" onSubmit={(event) => { event.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <TextField label="Search users" type="search" value={search} onInput={setSearch} placeholder="Name, username, email, phone or id" />
        <button type="submit" class="secondary">Search</button>
      </form>
      {list.error ? <ErrorText error={list.error} /> : !list.data ? <Loading what="users" /> : (
        <>
          <Table
            caption="Users" captionHidden rows={list.data.items} rowKey={(user) => user.id}
            empty={query ? 'No user matches.' : 'No users yet.'}
            columns={[
              { header: 'User', cell: (user) => <Link to={`/users/${user.id}`}>{displayName(user)}</Link> },
              { header: 'Username', cell: (user) => user.username ?? '—' },
              { header: 'Email', cell: (user) => user.primaryEmail ?? '—' },
              { header: 'Status', cell: (user) => (user.isSuspended ? 'Suspended' : 'Active') },
              { header: 'Created', cell: (user) => new Date(user.createdAt).toLocaleDateString() },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
      <Dialog title="Create user" open={creating} onClose={() => { setCreating(false); list.reload(); }}>
        <CreateUser onCreated={(user) => { setCreating(false); navigate(`/users/${user.id}`); }} onCancel={() => setCreating(false)} />
      </Dialog>
    </>
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
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const user = await action.run(() => api<User>('POST', '/users', {
          body: {
            ...(username && { username }), ...(email && { primaryEmail: email }), ...(phone && { primaryPhone: phone }),
            ...(name && { name }), ...(password && { password }),
          },
        }));
        if (user) props.onCreated(user);
      }}
    >
      <p class="hint">Give at least one of username, email and phone: it is how the user signs in.</p>
      <TextField label="Username" value={username} onInput={setUsername} autoComplete="off" error={action.fieldError('username') ?? conflictFor(action.error, 'username')} />
      <TextField label="Email" type="email" value={email} onInput={setEmail} autoComplete="off" error={action.fieldError('primaryEmail') ?? conflictFor(action.error, 'primaryEmail')} />
      <TextField label="Phone" value={phone} onInput={setPhone} inputMode="numeric" autoComplete="off" hint="Digits only, with the country code (E.164 without +)." error={action.fieldError('primaryPhone') ?? conflictFor(action.error, 'primaryPhone')} />
      <TextField label="Name" value={name} onInput={setName} autoComplete="off" error={action.fieldError('name')} />
      <TextField
        label="Password" type="password" value={password} onInput={setPassword} autoComplete="new-password"
        hint="Optional: without one, the user signs in with a code or sets a password through “Forgot password”."
        error={action.fieldError('password') ?? passwordProblems(action.error)}
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
      </div>
      <ErrorText error={shownAtField(action.error) ? undefined : action.actionError(fields)} />
    </form>
  );
}
