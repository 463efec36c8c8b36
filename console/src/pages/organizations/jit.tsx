import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Table } from '../../components/table.tsx';
import { userRoles, type OrganizationRole } from './types.ts';

interface SsoConnector { id: string; connectorName: string; domains: string[] }

/**
 * Just-in-time membership: users with a verified email of these domains, or signing in through these enterprise
 * SSO connectors, join the organization with the default roles.
 */
export function JitSection(props: { path: string; roles: OrganizationRole[] | undefined }) {
  return (
    <Section
      title="Just-in-time membership"
      description="Users join this organization on their own when they sign up or sign in with a verified email of these domains, or through these enterprise SSO connectors, and get the default roles."
    >
      <EmailDomains path={`${props.path}/jit/email-domains`} />
      <DefaultRoles path={`${props.path}/jit/roles`} roles={props.roles} />
      <SsoConnectors path={`${props.path}/jit/sso-connectors`} />
    </Section>
  );
}

function EmailDomains(props: { path: string }) {
  const domains = useLoad(() => apiList<{ emailDomain: string }>(props.path), [props.path]);
  const [domain, setDomain] = useState('');
  const add = useAction();
  const remove = useAction();
  return (
    <>
      <h3>Email domains</h3>
      {domains.error ? <ErrorText error={domains.error} /> : !domains.data ? <Loading what="email domains" /> : (
        <Table
          caption="Just-in-time email domains" captionHidden rows={domains.data.items} rowKey={(row) => row.emailDomain} empty="No email domains."
          columns={[
            { header: 'Email domain', cell: (row) => row.emailDomain },
            {
              header: 'Actions', numeric: true,
              cell: (row) => (
                <button
                  type="button" class="secondary small" aria-label={`Remove email domain ${row.emailDomain}`} disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${props.path}/${encodeURIComponent(row.emailDomain)}`));
                    domains.reload();
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
      <form
        class="inline-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const added = await add.run(() => api('POST', props.path, { body: { emailDomain: domain.trim() } }));
          if (added) {
            setDomain('');
            domains.reload();
          }
        }}
      >
        <TextField label="Email domain to add" value={domain} onInput={setDomain} required placeholder="example.com" error={add.fieldError('emailDomain')} />
        <div class="actions"><button type="submit" class="secondary" disabled={add.pending}>Add email domain</button></div>
        <ErrorText error={add.actionError(['emailDomain'])} />
      </form>
    </>
  );
}

function DefaultRoles(props: { path: string; roles: OrganizationRole[] | undefined }) {
  const held = useLoad(() => apiList<OrganizationRole>(props.path), [props.path]);
  const [choice, setChoice] = useState('');
  const add = useAction();
  const remove = useAction();
  const heldIds = new Set(held.data?.items.map((role) => role.id));
  const options = userRoles(props.roles).filter((role) => !heldIds.has(role.id)).map((role) => ({ value: role.id, label: role.name }));
  const selected = options.some((option) => option.value === choice) ? choice : options[0]?.value ?? '';
  return (
    <>
      <h3>Default roles</h3>
      {held.error ? <ErrorText error={held.error} /> : !held.data ? <Loading what="default roles" /> : (
        <Table
          caption="Just-in-time default roles" captionHidden rows={held.data.items} rowKey={(role) => role.id} empty="No default roles."
          columns={[
            { header: 'Organization role', cell: (role) => role.name },
            {
              header: 'Actions', numeric: true,
              cell: (role) => (
                <button
                  type="button" class="secondary small" aria-label={`Remove default role ${role.name}`} disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${props.path}/${encodeURIComponent(role.id)}`));
                    held.reload();
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
      {props.roles && options.length === 0 ? (
        <p class="hint">No other organization role to add: create one in the <Link to="/organization-template">organization template</Link>.</p>
      ) : options.length > 0 && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            await add.run(() => api('POST', props.path, { body: { organizationRoleIds: [selected] } }));
            held.reload();
          }}
        >
          <SelectField label="Default role to add" value={selected} onChange={setChoice} options={options} error={add.fieldError('organizationRoleIds')} />
          <div class="actions"><button type="submit" class="secondary" disabled={add.pending}>Add default role</button></div>
          <ErrorText error={add.actionError(['organizationRoleIds'])} />
        </form>
      )}
    </>
  );
}

function SsoConnectors(props: { path: string }) {
  const held = useLoad(() => apiList<SsoConnector>(props.path), [props.path]);
  const all = useLoad(() => apiList<SsoConnector>('/sso-connectors', { page_size: 100 }), []);
  const [choice, setChoice] = useState('');
  const add = useAction();
  const remove = useAction();
  const heldIds = new Set(held.data?.items.map((connector) => connector.id));
  const options = (all.data?.items ?? []).filter((connector) => !heldIds.has(connector.id))
    .map((connector) => ({ value: connector.id, label: connector.connectorName }));
  const selected = options.some((option) => option.value === choice) ? choice : options[0]?.value ?? '';
  return (
    <>
      <h3>Enterprise SSO connectors</h3>
      {held.error ? <ErrorText error={held.error} /> : !held.data ? <Loading what="SSO connectors" /> : (
        <Table
          caption="Just-in-time enterprise SSO connectors" captionHidden rows={held.data.items} rowKey={(connector) => connector.id}
          empty="No enterprise SSO connectors."
          columns={[
            { header: 'Connector', cell: (connector) => <Link to={`/connectors/sso/${connector.id}`}>{connector.connectorName}</Link> },
            { header: 'Email domains', cell: (connector) => connector.domains.join(', ') || '—' },
            {
              header: 'Actions', numeric: true,
              cell: (connector) => (
                <button
                  type="button" class="secondary small" aria-label={`Remove SSO connector ${connector.connectorName}`} disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${props.path}/${encodeURIComponent(connector.id)}`));
                    held.reload();
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
      {all.error ? <ErrorText error={all.error} /> : all.data && options.length === 0 ? (
        <p class="hint">No other enterprise SSO connector to add: create one on the <Link to="/connectors">connectors page</Link>.</p>
      ) : options.length > 0 && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            await add.run(() => api('POST', props.path, { body: { ssoConnectorIds: [selected] } }));
            held.reload();
          }}
        >
          <SelectField label="SSO connector to add" value={selected} onChange={setChoice} options={options} error={add.fieldError('ssoConnectorIds')} />
          <div class="actions"><button type="submit" class="secondary" disabled={add.pending}>Add SSO connector</button></div>
          <ErrorText error={add.actionError(['ssoConnectorIds'])} />
        </form>
      )}
    </>
  );
}
