import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
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
  const back = <p><Link to="/organizations">← Organizations</Link></p>;
  if (organization.error) return <>{back}<ErrorText error={organization.error} /></>;
  if (!organization.data) return <Loading what="the organization" />;
  const current = organization.data;
  const path = `/organizations/${encodeURIComponent(current.id)}`;
  return (
    <>
      {back}
      <div class="page-head"><h1>{current.name}</h1></div>
      <dl class="facts">
        <dt>Organization ID</dt><dd><code>{current.id}</code></dd>
        <dt>Created</dt><dd>{new Date(current.createdAt).toLocaleString()}</dd>
      </dl>
      <SettingsSection organization={current} onSaved={organization.set} key={`settings-${current.id}`} />
      {roles.error && <ErrorText error={roles.error} />}
      <MembersSection path={path} organizationId={current.id} roles={roles.data} />
      <ApplicationsSection path={path} roles={roles.data} />
      <JitSection path={path} roles={roles.data} />
      <InvitationsSection organizationId={current.id} roles={roles.data} />
      <DeleteSection
        what="organization" name={current.name} description="Removes every member, role assignment, invitation and just-in-time rule of this organization. This cannot be undone."
        consequence="Its members keep their accounts but lose its roles; organization tokens for it are no longer issued."
        remove={() => api('DELETE', path)} onDeleted={() => navigate('/organizations')}
      />
    </>
  );
}

function SettingsSection(props: { organization: Organization; onSaved: (organization: Organization) => void }) {
  const { organization } = props;
  const [name, setName] = useState(organization.name);
  const [description, setDescription] = useState(organization.description ?? '');
  const [mfa, setMfa] = useState(organization.isMfaRequired);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const fields = ['name', 'description', 'isMfaRequired'];
  return (
    <Section title="Settings">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          const updated = await action.run(() => api<Organization>('PATCH', `/organizations/${encodeURIComponent(organization.id)}`, {
            body: { name, description: description || null, isMfaRequired: mfa },
          }));
          if (updated) {
            props.onSaved(updated);
            setSaved(true);
          }
        }}
      >
        <TextField label="Name" value={name} onInput={setName} required error={action.fieldError('name')} />
        <TextField label="Description" value={description} onInput={setDescription} error={action.fieldError('description')} />
        <CheckboxField
          label="Members need multi-factor authentication" checked={mfa} onChange={setMfa} error={action.fieldError('isMfaRequired')}
          hint="Organization tokens are refused to a member without a second factor."
        />
        <div class="actions">
          <button type="submit" disabled={action.pending}>Save settings</button>
          <span role="status" class="status">{saved ? 'Saved.' : ''}</span>
        </div>
        <ErrorText error={action.actionError(fields)} />
      </form>
    </Section>
  );
}
