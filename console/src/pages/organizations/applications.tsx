import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useLoad } from '../../components/feedback.tsx';
import { LinkedItems } from '../../components/linked.tsx';
import { Link } from '../../components/link.tsx';
import type { Application } from '../applications/types.ts';
import { MemberRoles } from './members.tsx';
import type { OrganizationRole } from './types.ts';

const machineRoles = (roles: OrganizationRole[] | undefined) =>
  (roles ?? []).filter((role) => role.type === 'MachineToMachine');

/** Machine-to-machine applications in the organization, with the organization roles each holds. */
export function ApplicationsSection(props: { path: string; roles: OrganizationRole[] | undefined }) {
  const members = useLoad(() => apiList<Application>(`${props.path}/applications`, { page_size: 100 }), [props.path]);
  const all = useLoad(() => apiList<Application>('/applications', { page_size: 100, types: 'MachineToMachine' }), []);
  const [editing, setEditing] = useState<Application>();
  const [version, setVersion] = useState(0);
  return (
    <Section
      title="Applications"
      description="Machine-to-machine applications acting in this organization, with their organization roles."
    >
      <LinkedItems
        linked={members}
        caption="Applications in this organization"
        what="applications"
        empty="No applications."
        columns={[
          { header: 'Application', cell: (app) => <Link to={`/applications/${app.id}`}>{app.name}</Link> },
          {
            header: 'Organization roles',
            cell: (app) => (
              <HeldRoles path={`${props.path}/applications/${encodeURIComponent(app.id)}/roles`} version={version} />
            ),
          },
        ]}
        actions={(app) => (
          <button
            type="button"
            class="secondary small"
            aria-label={`Edit roles of ${app.name}`}
            onClick={() => setEditing(app)}
          >
            Roles
          </button>
        )}
        removeLabel={(app) => `Remove ${app.name} from the organization`}
        unlink={(app) => api('DELETE', `${props.path}/applications/${encodeURIComponent(app.id)}`)}
        add={{
          label: 'Application to add',
          button: 'Add application',
          field: 'applicationIds',
          candidatesError: all.error,
          candidates: all.data?.items
            .filter((app) => app.type === 'MachineToMachine')
            .map((app) => ({ value: app.id, label: app.name })),
          link: (id) => api('POST', `${props.path}/applications`, { body: { applicationIds: [id] } }),
        }}
      />
      <Dialog
        title={editing ? `Roles of ${editing.name}` : 'Roles'}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing && (
          <EditApplicationRoles
            path={`${props.path}/applications/${encodeURIComponent(editing.id)}/roles`}
            roles={machineRoles(props.roles)}
            onDone={() => {
              setEditing(undefined);
              setVersion((value) => value + 1);
            }}
          />
        )}
      </Dialog>
    </Section>
  );
}

function HeldRoles(props: { path: string; version: number }) {
  const roles = useLoad(() => apiList<OrganizationRole>(props.path, { page_size: 100 }), [props.path, props.version]);
  if (roles.error) return <ErrorText error={roles.error} />;
  if (!roles.data) return <>…</>;
  return <>{roles.data.items.map((role) => role.name).join(', ') || '—'}</>;
}

function EditApplicationRoles(props: { path: string; roles: OrganizationRole[]; onDone: () => void }) {
  const held = useLoad(() => apiList<OrganizationRole>(props.path, { page_size: 100 }), [props.path]);
  if (held.error) return <ErrorText error={held.error} />;
  if (!held.data) return <Loading what="roles" />;
  return (
    <MemberRoles
      path={props.path}
      held={held.data.items.map((role) => role.id)}
      roles={props.roles}
      onDone={props.onDone}
    />
  );
}
