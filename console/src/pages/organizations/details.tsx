import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { ErrorText, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, TextField } from '../../components/field.tsx';
import { navigate } from '../../router.ts';
import { ApplicationsSection } from './applications.tsx';
import { InvitationsSection } from './invitations.tsx';
import { JitSection } from './jit.tsx';
import { MembersSection } from './members.tsx';
import type { Organization, OrganizationRole } from './types.ts';

export function OrganizationDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const organization = useLoad(() => api<Organization>('GET', `/organizations/${encodeURIComponent(id)}`), [id]);
  const roles = useLoad(() => api<OrganizationRole[]>('GET', '/organization-roles', { query: { page_size: 100 } }), []);
  return (
    <DetailsPage record={organization} back={{ to: '/organizations', label: 'Organizations' }} what="the organization">
      {(current) => {
        const path = `/organizations/${encodeURIComponent(current.id)}`;
        return (
          <>
            <RecordHeading
              title={current.name}
              facts={[
                ['Organization ID', <code>{current.id}</code>],
                ['Created', new Date(current.createdAt).toLocaleString()],
              ]}
            />
            <SettingsSection organization={current} onSaved={organization.set} key={`settings-${current.id}`} />
            {roles.error && <ErrorText error={roles.error} />}
            <MembersSection path={path} organizationId={current.id} roles={roles.data} />
            <ApplicationsSection path={path} roles={roles.data} />
            <JitSection path={path} roles={roles.data} />
            <InvitationsSection organizationId={current.id} roles={roles.data} />
            <DeleteSection
              what="organization"
              name={current.name}
              description="Removes every member, role assignment, invitation and just-in-time rule of this organization. This cannot be undone."
              consequence="Its members keep their accounts but lose its roles; organization tokens for it are no longer issued."
              remove={() => api('DELETE', path)}
              onDeleted={() => navigate('/organizations')}
            />
          </>
        );
      }}
    </DetailsPage>
  );
}

function SettingsSection(props: { organization: Organization; onSaved: (organization: Organization) => void }) {
  const { organization } = props;
  const [name, setName] = useState(organization.name);
  const [description, setDescription] = useState(organization.description ?? '');
  const [mfa, setMfa] = useState(organization.isMfaRequired);
  const action = useAction();
  const fields = ['name', 'description', 'isMfaRequired'];
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={action.actionError(fields)}
        save={() =>
          api<Organization>('PATCH', `/organizations/${encodeURIComponent(organization.id)}`, {
            body: { name, description: description || null, isMfaRequired: mfa },
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
        <CheckboxField
          label="Members need multi-factor authentication"
          checked={mfa}
          onChange={setMfa}
          error={action.fieldError('isMfaRequired')}
          hint="Organization tokens are refused to a member without a second factor."
        />
      </SaveForm>
    </Section>
  );
}
