import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { RoleAssignments } from '../../components/roles.tsx';
import { Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { ImpersonateSection } from './impersonate.tsx';
import { ImpersonationHistorySection } from './impersonations.tsx';
import { IdentitiesSection } from './identities.tsx';
import { MfaSection } from './mfa.tsx';
import { conflictFor, displayName, shownAtField, type User } from './types.ts';

export function UserDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const user = useLoad(() => api<User>('GET', `/users/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={user} back={{ to: '/users', label: 'Users' }} what="the user">
      {(current) => {
        const path = `/users/${encodeURIComponent(current.id)}`;
        return (
          <>
            <RecordHeading
              title={displayName(current)}
              badge={current.isSuspended && 'Suspended'}
              facts={[
                ['User ID', <code>{current.id}</code>],
                ['Password', current.hasPassword ? 'Set' : 'None'],
                ['Last sign-in', current.lastSignInAt ? new Date(current.lastSignInAt).toLocaleString() : 'Never'],
                ['Created', new Date(current.createdAt).toLocaleString()],
              ]}
            />
            <ProfileSection user={current} onSaved={user.set} key={`profile-${current.id}`} />
            <ImpersonateSection user={current} />
            <ImpersonationHistorySection user={current} key={`impersonations-${current.id}`} />
            <SuspensionSection user={current} onSaved={user.set} />
            <RoleAssignments
              path={`${path}/roles`}
              roleType="User"
              holder="this user"
              description="User roles give the user API scopes when they sign in to an application."
            />
            <OrganizationsSection userId={current.id} />
            <MfaSection userId={current.id} />
            <IdentitiesSection userId={current.id} />
            <DeleteSection
              what="user"
              name={displayName(current)}
              description="Removes the user with their roles, memberships and sessions. This cannot be undone."
              consequence="Their sign-ins end now, and their account cannot be recovered."
              remove={() => api('DELETE', path)}
              onDeleted={() => navigate('/users')}
            />
          </>
        );
      }}
    </DetailsPage>
  );
}

function ProfileSection(props: { user: User; onSaved: (user: User) => void }) {
  const { user } = props;
  const [username, setUsername] = useState(user.username ?? '');
  const [email, setEmail] = useState(user.primaryEmail ?? '');
  const [phone, setPhone] = useState(user.primaryPhone ?? '');
  const [name, setName] = useState(user.name ?? '');
  const action = useAction();
  return (
    <Section title="Profile">
      <SaveForm
        action={action}
        button="Save profile"
        error={
          shownAtField(action.error)
            ? undefined
            : action.actionError(['username', 'primaryEmail', 'primaryPhone', 'name'])
        }
        save={() =>
          api<User>('PATCH', `/users/${encodeURIComponent(user.id)}`, {
            body: {
              username: username || null,
              primaryEmail: email || null,
              primaryPhone: phone || null,
              name: name || null,
            },
          })
        }
        onSaved={props.onSaved}
      >
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
          error={action.fieldError('primaryPhone') ?? conflictFor(action.error, 'primaryPhone')}
        />
        <TextField label="Name" value={name} onInput={setName} autoComplete="off" error={action.fieldError('name')} />
      </SaveForm>
    </Section>
  );
}

function SuspensionSection(props: { user: User; onSaved: (user: User) => void }) {
  const action = useAction();
  const { user } = props;
  return (
    <Section
      title="Access"
      description={
        user.isSuspended
          ? 'Suspended: the user cannot sign in, and no token can be issued or exchanged for them.'
          : 'Suspending ends every session and grant of the user at once.'
      }
    >
      <div class="actions">
        <button
          type="button"
          class={user.isSuspended ? undefined : 'danger'}
          disabled={action.pending}
          onClick={async () => {
            const updated = await action.run(() =>
              api<User>('PATCH', `/users/${encodeURIComponent(user.id)}/is-suspended`, {
                body: { isSuspended: !user.isSuspended },
              }),
            );
            if (updated) props.onSaved(updated);
          }}
        >
          {user.isSuspended ? 'Reactivate user' : 'Suspend user'}
        </button>
      </div>
      <ErrorText error={action.error} />
    </Section>
  );
}

interface Organization {
  id: string;
  name: string;
  organizationRoles: Array<{ id: string; name: string }>;
}

function OrganizationsSection(props: { userId: string }) {
  const organizations = useLoad(
    () => api<Organization[]>('GET', `/users/${encodeURIComponent(props.userId)}/organizations`),
    [props.userId],
  );
  return (
    <Section title="Organizations" description="Where the user is a member, with their organization roles there.">
      {organizations.error ? (
        <ErrorText error={organizations.error} />
      ) : !organizations.data ? (
        <Loading what="organizations" />
      ) : (
        <Table
          caption="Organizations of this user"
          captionHidden
          rows={organizations.data}
          rowKey={(organization) => organization.id}
          empty="Not a member of any organization."
          columns={[
            { header: 'Organization', cell: (organization) => organization.name },
            { header: 'ID', cell: (organization) => <code>{organization.id}</code> },
            {
              header: 'Roles',
              cell: (organization) => organization.organizationRoles.map((role) => role.name).join(', ') || '—',
            },
          ]}
        />
      )}
    </Section>
  );
}
