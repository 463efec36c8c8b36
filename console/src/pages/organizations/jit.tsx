import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ErrorText, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { LinkedItems } from '../../components/linked.tsx';
import { Link } from '../../components/link.tsx';
import { userRoles, type OrganizationRole } from './types.ts';

interface SsoConnector {
  id: string;
  connectorName: string;
  domains: string[];
}

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
  const domains = useLoad(async () => {
    const listed = await apiList<{ emailDomain: string }>(props.path);
    return { items: listed.items.map(({ emailDomain }) => ({ id: emailDomain })) };
  }, [props.path]);
  const [domain, setDomain] = useState('');
  const add = useAction();
  return (
    <>
      <h3>Email domains</h3>
      <LinkedItems
        linked={domains}
        caption="Just-in-time email domains"
        what="email domains"
        empty="No email domains."
        columns={[{ header: 'Email domain', cell: (row) => row.id }]}
        removeLabel={(row) => `Remove email domain ${row.id}`}
        unlink={(row) => api('DELETE', `${props.path}/${encodeURIComponent(row.id)}`)}
      >
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
          <TextField
            label="Email domain to add"
            value={domain}
            onInput={setDomain}
            required
            placeholder="example.com"
            error={add.fieldError('emailDomain')}
          />
          <div class="actions">
            <button type="submit" class="secondary" disabled={add.pending}>
              Add email domain
            </button>
          </div>
          <ErrorText error={add.actionError(['emailDomain'])} />
        </form>
      </LinkedItems>
    </>
  );
}

function DefaultRoles(props: { path: string; roles: OrganizationRole[] | undefined }) {
  const held = useLoad(() => apiList<OrganizationRole>(props.path), [props.path]);
  return (
    <>
      <h3>Default roles</h3>
      <LinkedItems
        linked={held}
        caption="Just-in-time default roles"
        what="default roles"
        empty="No default roles."
        columns={[{ header: 'Organization role', cell: (role) => role.name }]}
        removeLabel={(role) => `Remove default role ${role.name}`}
        unlink={(role) => api('DELETE', `${props.path}/${encodeURIComponent(role.id)}`)}
        add={{
          label: 'Default role to add',
          button: 'Add default role',
          field: 'organizationRoleIds',
          candidates: props.roles && userRoles(props.roles).map((role) => ({ value: role.id, label: role.name })),
          none: (
            <>
              No other organization role to add: create one in the{' '}
              <Link to="/organization-template">organization template</Link>.
            </>
          ),
          link: (id) => api('POST', props.path, { body: { organizationRoleIds: [id] } }),
        }}
      />
    </>
  );
}

function SsoConnectors(props: { path: string }) {
  const held = useLoad(() => apiList<SsoConnector>(props.path), [props.path]);
  const all = useLoad(() => apiList<SsoConnector>('/sso-connectors', { page_size: 100 }), []);
  return (
    <>
      <h3>Enterprise SSO connectors</h3>
      <LinkedItems
        linked={held}
        caption="Just-in-time enterprise SSO connectors"
        what="SSO connectors"
        empty="No enterprise SSO connectors."
        columns={[
          {
            header: 'Connector',
            cell: (connector) => <Link to={`/connectors/sso/${connector.id}`}>{connector.connectorName}</Link>,
          },
          { header: 'Email domains', cell: (connector) => connector.domains.join(', ') || '—' },
        ]}
        removeLabel={(connector) => `Remove SSO connector ${connector.connectorName}`}
        unlink={(connector) => api('DELETE', `${props.path}/${encodeURIComponent(connector.id)}`)}
        add={{
          label: 'SSO connector to add',
          button: 'Add SSO connector',
          field: 'ssoConnectorIds',
          candidatesError: all.error,
          candidates: all.data?.items.map((connector) => ({ value: connector.id, label: connector.connectorName })),
          none: (
            <>
              No other enterprise SSO connector to add: create one on the <Link to="/connectors">connectors page</Link>.
            </>
          ),
          link: (id) => api('POST', props.path, { body: { ssoConnectorIds: [id] } }),
        }}
      />
    </>
  );
}
