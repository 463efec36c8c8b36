import { useState } from 'preact/hooks';
import { api, apiList } from '../api.ts';
import { Dialog } from './dialog.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from './feedback.tsx';
import { SelectField } from './field.tsx';
import { Table } from './table.tsx';

interface Role {
  id: string;
  name: string;
  description: string;
  type: string;
}

/** The built-in role that grants the whole management API through sign-in (the service's bootstrap defines it). */
const CONSOLE_ADMIN_ROLE_ID = 'console-admin';

/**
 * The roles a user or an application holds (`path` is its `/roles` list): remove one, or assign one of the roles
 * of `roleType` it does not hold yet. Nothing is chosen until the admin picks a role, and granting Console admin
 * asks to be confirmed first: it is the most powerful role there is.
 */
export function RoleAssignments(props: {
  path: string;
  roleType: 'User' | 'MachineToMachine';
  holder: string;
  description: string;
}) {
  const { path } = props;
  const roles = useLoad(() => apiList<Role>(path, { page_size: 100 }), [path]);
  const available = useLoad(() => apiList<Role>('/roles', { type: props.roleType, page_size: 100 }), [props.roleType]);
  const [choice, setChoice] = useState('');
  const [confirming, setConfirming] = useState(false);
  const assign = useAction();
  const remove = useAction();
  const held = new Set(roles.data?.items.map((role) => role.id));
  const options = (available.data?.items ?? []).filter((role) => !held.has(role.id));
  const selected = options.some((role) => role.id === choice) ? choice : '';
  const grant = async () => {
    const done = await assign.run(async () => {
      await api('POST', path, { body: { roleIds: [selected] } });
      return true;
    });
    if (done) setChoice('');
    roles.reload();
  };
  return (
    <Section title="Roles" description={props.description}>
      {roles.error ? (
        <ErrorText error={roles.error} />
      ) : !roles.data ? (
        <Loading what="roles" />
      ) : (
        <Table
          caption={`Roles of ${props.holder}`}
          captionHidden
          rows={roles.data.items}
          rowKey={(role) => role.id}
          empty="No roles."
          columns={[
            { header: 'Role', cell: (role) => role.name },
            { header: 'Description', cell: (role) => role.description },
            {
              header: 'Actions',
              numeric: true,
              cell: (role) => (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Remove role ${role.name}`}
                  disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${path}/${encodeURIComponent(role.id)}`));
                    roles.reload();
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
      {options.length > 0 && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (!selected) return;
            if (selected === CONSOLE_ADMIN_ROLE_ID) setConfirming(true);
            else await grant();
          }}
        >
          <SelectField
            label="Role to assign"
            value={selected}
            onChange={setChoice}
            options={[
              { value: '', label: 'Choose a role…' },
              ...options.map((role) => ({ value: role.id, label: role.name })),
            ]}
            error={assign.fieldError('roleIds')}
          />
          <div class="actions">
            <button type="submit" class="secondary" disabled={assign.pending || !selected}>
              Assign role
            </button>
          </div>
          <ErrorText error={assign.actionError(['roleIds'])} />
        </form>
      )}
      <Dialog title={`Make ${props.holder} a console admin?`} open={confirming} onClose={() => setConfirming(false)}>
        <p>
          Console admins have full access to the management API: they can read and change every user, application and
          setting, and make other console admins.
        </p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={assign.pending}
            onClick={async () => {
              await grant();
              setConfirming(false);
            }}
          >
            Grant Console admin
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </Section>
  );
}
