import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, SelectField } from '../../components/field.tsx';
import { LinkedItems } from '../../components/linked.tsx';
import { Pager } from '../../components/table.tsx';
import { UserPicker } from '../../components/user-picker.tsx';
import { displayName, type User } from '../users/types.ts';
import { userRoles, type OrganizationRole } from './types.ts';

type Member = User & { organizationRoles: Array<{ id: string; name: string }> };

const PAGE_SIZE = 20;

/** The organization's members with their organization roles: add a user with a role, change roles, remove. */
export function MembersSection(props: { path: string; organizationId: string; roles: OrganizationRole[] | undefined }) {
  const [page, setPage] = useState(1);
  const members = useLoad(
    () => apiList<Member>(`${props.path}/users`, { page, page_size: PAGE_SIZE }),
    [props.path, page],
  );
  const [newRole, setNewRole] = useState('');
  const [editing, setEditing] = useState<Member>();
  const roles = userRoles(props.roles);
  return (
    <Section title="Members" description="Users in this organization and the organization roles each holds.">
      <LinkedItems
        linked={members}
        caption="Members of this organization"
        what="members"
        empty="No members yet."
        columns={[
          { header: 'Member', cell: (member) => displayName(member) },
          { header: 'Email', cell: (member) => member.primaryEmail ?? '—' },
          {
            header: 'Organization roles',
            cell: (member) => member.organizationRoles.map((role) => role.name).join(', ') || '—',
          },
        ]}
        actions={(member) => (
          <button
            type="button"
            class="secondary small"
            aria-label={`Edit roles of ${displayName(member)}`}
            onClick={() => setEditing(member)}
          >
            Roles
          </button>
        )}
        removeLabel={(member) => `Remove ${displayName(member)} from the organization`}
        unlink={(member) => api('DELETE', `${props.path}/users/${encodeURIComponent(member.id)}`)}
      >
        {members.data && <Pager page={page} pageSize={PAGE_SIZE} total={members.data.total} onPage={setPage} />}
      </LinkedItems>
      <div class="inline-form">
        <h3>Add members</h3>
        <SelectField
          label="Organization role for new members"
          value={newRole}
          onChange={setNewRole}
          options={[{ value: '', label: 'No role' }, ...roles.map((role) => ({ value: role.id, label: role.name }))]}
        />
        <UserPicker
          label="Find users to add"
          action="Add"
          exclude={{ excludeOrganizationId: props.organizationId }}
          onPick={async (user) => {
            await api('POST', `${props.path}/users`, { body: { userIds: [user.id] } });
            try {
              if (newRole)
                await api('POST', `${props.path}/users/${encodeURIComponent(user.id)}/roles`, {
                  body: { organizationRoleIds: [newRole] },
                });
            } finally {
              members.reload();
            }
          }}
        />
      </div>
      <Dialog
        title={editing ? `Roles of ${displayName(editing)}` : 'Roles'}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing && (
          <MemberRoles
            path={`${props.path}/users/${encodeURIComponent(editing.id)}/roles`}
            held={editing.organizationRoles.map((role) => role.id)}
            roles={roles}
            onDone={() => {
              setEditing(undefined);
              members.reload();
            }}
          />
        )}
      </Dialog>
    </Section>
  );
}

/** Which organization roles a member (user or application) holds: checkboxes, saved whole. */
export function MemberRoles(props: { path: string; held: string[]; roles: OrganizationRole[]; onDone: () => void }) {
  const [chosen, setChosen] = useState(new Set(props.held));
  const action = useAction();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const done = await action.run(async () => {
          await api('PUT', props.path, { body: { organizationRoleIds: [...chosen] } });
          return true;
        });
        if (done) props.onDone();
      }}
    >
      <fieldset>
        <legend>Organization roles</legend>
        {props.roles.length === 0 && (
          <p class="hint">No organization roles of this kind yet: create them in the organization template.</p>
        )}
        {props.roles.map((role) => (
          <CheckboxField
            key={role.id}
            label={role.name}
            checked={chosen.has(role.id)}
            hint={role.description ?? undefined}
            onChange={(checked) => {
              const next = new Set(chosen);
              if (checked) next.add(role.id);
              else next.delete(role.id);
              setChosen(next);
            }}
          />
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={action.pending}>
          Save roles
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Cancel
        </button>
      </div>
      <ErrorText error={action.error} />
    </form>
  );
}
