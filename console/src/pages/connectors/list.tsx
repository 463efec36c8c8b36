import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useLoad } from '../../components/feedback.tsx';
import { Link } from '../../components/link.tsx';
import { Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { CreateSocialConnector } from './social.tsx';
import { CreateSsoConnector } from './sso.tsx';
import { FACTORIES, socialName, type SocialConnector, type SsoConnector } from './types.ts';

export function ConnectorList() {
  return (
    <>
      <div class="page-head">
        <h1>Connectors</h1>
      </div>
      <p class="hint">
        Other identity providers users sign in with: social connectors appear as “Continue with …” on the sign-in page;
        enterprise SSO connectors take over for their email domains.
      </p>
      <SocialSection />
      <SsoSection />
    </>
  );
}

function SocialSection() {
  const list = useLoad(() => api<SocialConnector[]>('GET', '/connectors'), []);
  const [creating, setCreating] = useState(false);
  return (
    <Section title="Social connectors">
      <div class="actions">
        <button type="button" onClick={() => setCreating(true)}>
          Create social connector
        </button>
      </div>
      <div class="inline-form">
        {list.error ? (
          <ErrorText error={list.error} />
        ) : !list.data ? (
          <Loading what="social connectors" />
        ) : (
          <Table
            caption="Social connectors"
            captionHidden
            rows={list.data}
            rowKey={(connector) => connector.id}
            empty="No social connectors yet."
            columns={[
              {
                header: 'Name',
                cell: (connector) => <Link to={`/connectors/social/${connector.id}`}>{socialName(connector)}</Link>,
              },
              {
                header: 'Protocol',
                cell: (connector) =>
                  FACTORIES.find((factory) => factory.value === connector.connectorId)?.label ?? connector.connectorId,
              },
              { header: 'Identity target', cell: (connector) => <code>{connector.target}</code> },
            ]}
          />
        )}
      </div>
      <Dialog title="Create social connector" open={creating} onClose={() => setCreating(false)}>
        <CreateSocialConnector
          onCancel={() => setCreating(false)}
          onCreated={(connector) => {
            setCreating(false);
            navigate(`/connectors/social/${connector.id}`);
          }}
        />
      </Dialog>
    </Section>
  );
}

function SsoSection() {
  const list = useLoad(() => api<SsoConnector[]>('GET', '/sso-connectors'), []);
  const [creating, setCreating] = useState(false);
  return (
    <Section title="Enterprise SSO connectors">
      <div class="actions">
        <button type="button" onClick={() => setCreating(true)}>
          Create enterprise SSO connector
        </button>
      </div>
      <div class="inline-form">
        {list.error ? (
          <ErrorText error={list.error} />
        ) : !list.data ? (
          <Loading what="enterprise SSO connectors" />
        ) : (
          <Table
            caption="Enterprise SSO connectors"
            captionHidden
            rows={list.data}
            rowKey={(connector) => connector.id}
            empty="No enterprise SSO connectors yet."
            columns={[
              {
                header: 'Name',
                cell: (connector) => <Link to={`/connectors/sso/${connector.id}`}>{connector.connectorName}</Link>,
              },
              { header: 'Email domains', cell: (connector) => connector.domains.join(', ') || '—' },
              { header: 'Issuer', cell: (connector) => <code>{String(connector.config.issuer ?? '—')}</code> },
            ]}
          />
        )}
      </div>
      <Dialog title="Create enterprise SSO connector" open={creating} onClose={() => setCreating(false)}>
        <CreateSsoConnector
          onCancel={() => setCreating(false)}
          onCreated={(connector) => {
            setCreating(false);
            navigate(`/connectors/sso/${connector.id}`);
          }}
        />
      </Dialog>
    </Section>
  );
}
