import { useState } from 'preact/hooks';
import { apiList, containing } from '../api.ts';
import { ErrorText, Loading, useAction, useLoad } from './feedback.tsx';
import { TextField } from './field.tsx';
import { Table } from './table.tsx';
import { displayName, type User } from '../pages/users/types.ts';

/**
 * Finds users to add to something (a role, an organization): a search, then an "Add" button per match. `exclude`
 * is the list query that leaves out who is already in (`excludeRoleId`, `excludeOrganizationId`).
 */
export function UserPicker(props: {
  label: string;
  exclude: Record<string, string>;
  action: string;
  onPick: (user: User) => Promise<unknown>;
}) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState<string>();
  const [version, setVersion] = useState(0);
  const pick = useAction();
  const found = useLoad(
    () =>
      query === undefined
        ? Promise.resolve(undefined)
        : apiList<User>('/users', { page_size: 10, search: containing(query), ...props.exclude }),
    [query, version, JSON.stringify(props.exclude)],
  );
  return (
    <div class="inline-form">
      <form
        class="search"
        role="search"
        aria-label={props.label}
        onSubmit={(event) => {
          event.preventDefault();
          setQuery(text.trim());
        }}
      >
        <TextField
          label={props.label}
          type="search"
          value={text}
          onInput={setText}
          placeholder="Name, username, email or id"
        />
        <button type="submit" class="secondary">
          Find users
        </button>
      </form>
      {found.error ? (
        <ErrorText error={found.error} />
      ) : query === undefined ? null : !found.data ? (
        <Loading what="users" />
      ) : (
        <Table
          caption={`Users found for “${query}”`}
          rows={found.data.items}
          rowKey={(user) => user.id}
          empty="No user matches who is not already here."
          columns={[
            { header: 'User', cell: (user) => displayName(user) },
            { header: 'Email', cell: (user) => user.primaryEmail ?? '—' },
            {
              header: 'Actions',
              numeric: true,
              cell: (user) => (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`${props.action} ${displayName(user)}`}
                  disabled={pick.pending}
                  onClick={async () => {
                    const picked = await pick.run(async () => {
                      await props.onPick(user);
                      return true;
                    });
                    if (picked) {
                      setText('');
                      setQuery(undefined);
                    } else {
                      setVersion((value) => value + 1);
                    }
                  }}
                >
                  {props.action}
                </button>
              ),
            },
          ]}
        />
      )}
      <ErrorText error={pick.error} />
    </div>
  );
}
