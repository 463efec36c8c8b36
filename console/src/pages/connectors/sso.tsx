import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, LinesField, TextField } from '../../components/field.tsx';
import { CreateForm } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import { callbackUrl, configError, text, unshownError, type SsoConnector } from './types.ts';

interface SsoForm {
  connectorName: string;
  domains: string[];
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  trustUnverifiedEmail: boolean;
  displayName: string;
  logo: string;
  syncProfile: boolean;
}

const CONFIG_FIELDS = ['issuer', 'clientId', 'clientSecret', 'scope', 'trustUnverifiedEmail'];
const BODY_FIELDS = ['connectorName', 'domains', 'branding', 'syncProfile', 'providerName'];

function formOf(connector?: SsoConnector): SsoForm {
  return {
    connectorName: connector?.connectorName ?? '',
    domains: connector?.domains ?? [],
    issuer: text(connector?.config.issuer),
    clientId: text(connector?.config.clientId),
    clientSecret: '',
    scope: text(connector?.config.scope),
    trustUnverifiedEmail: connector?.config.trustUnverifiedEmail === true,
    displayName: connector?.branding.displayName ?? '',
    logo: connector?.branding.logo ?? '',
    syncProfile: connector?.syncProfile ?? false,
  };
}

/** The body both create and update take; no secret on an update keeps the stored one. */
function bodyOf(form: SsoForm, connector?: SsoConnector) {
  const filled = (value: string) => value.trim() || undefined;
  return JSON.parse(
    JSON.stringify({
      connectorName: form.connectorName.trim(),
      domains: form.domains.map((domain) => domain.trim()).filter(Boolean),
      syncProfile: form.syncProfile,
      config: {
        issuer: form.issuer.trim(),
        clientId: form.clientId.trim(),
        clientSecret: filled(form.clientSecret),
        scope: filled(form.scope),
        trustUnverifiedEmail: form.trustUnverifiedEmail,
      },
      branding: {
        ...(connector && { darkLogo: connector.branding.darkLogo }),
        displayName: filled(form.displayName),
        logo: filled(form.logo),
      },
    }),
  ) as Record<string, unknown>;
}

function SsoFields(props: {
  value: SsoForm;
  onChange: (value: SsoForm) => void;
  error: unknown;
  fieldError: (field: string) => string | undefined;
  storedSecret?: string;
}) {
  const { value } = props;
  const set = (changes: Partial<SsoForm>) => props.onChange({ ...value, ...changes });
  const config = (field: string) => configError(props.error, field);
  return (
    <>
      <TextField
        label="Connector name"
        value={value.connectorName}
        onInput={(connectorName) => set({ connectorName })}
        required
        error={props.fieldError('connectorName')}
      />
      <LinesField
        label="Email domains"
        value={value.domains}
        onInput={(domains) => set({ domains })}
        error={props.fieldError('domains')}
        hint="One per line: users whose email is of these domains are sent to this provider to sign in."
      />
      <TextField
        label="Issuer"
        type="url"
        value={value.issuer}
        onInput={(issuer) => set({ issuer })}
        required
        error={config('issuer')}
        hint="The provider's discovery document is read from it."
      />
      <TextField
        label="Client ID"
        value={value.clientId}
        onInput={(clientId) => set({ clientId })}
        required
        error={config('clientId')}
      />
      <TextField
        label="Client secret"
        type="password"
        autoComplete="off"
        value={value.clientSecret}
        onInput={(clientSecret) => set({ clientSecret })}
        required={props.storedSecret === undefined}
        error={config('clientSecret')}
        hint={
          props.storedSecret ? `Stored: ${props.storedSecret}. Empty keeps it.` : 'Stored encrypted; never shown again.'
        }
      />
      <TextField
        label="Scope"
        value={value.scope}
        onInput={(scope) => set({ scope })}
        error={config('scope')}
        placeholder="openid profile email"
        hint="Space-separated; must include openid."
      />
      <CheckboxField
        label="Trust unverified emails"
        checked={value.trustUnverifiedEmail}
        onChange={(trustUnverifiedEmail) => set({ trustUnverifiedEmail })}
        error={config('trustUnverifiedEmail')}
        hint="Treat the provider's email as verified without email_verified: it then links to an existing account."
      />
      <TextField
        label="Display name"
        value={value.displayName}
        onInput={(displayName) => set({ displayName })}
        error={props.fieldError('branding.displayName')}
      />
      <TextField
        label="Logo URL"
        type="url"
        value={value.logo}
        onInput={(logo) => set({ logo })}
        error={props.fieldError('branding.logo')}
      />
      <CheckboxField
        label="Update the profile at every sign-in"
        checked={value.syncProfile}
        onChange={(syncProfile) => set({ syncProfile })}
        error={props.fieldError('syncProfile')}
      />
    </>
  );
}

export function CreateSsoConnector(props: { onCreated: (connector: SsoConnector) => void; onCancel: () => void }) {
  const [form, setForm] = useState(() => formOf());
  const action = useAction();
  return (
    <CreateForm
      action={action}
      error={unshownError(action.error, CONFIG_FIELDS, BODY_FIELDS)}
      onCancel={props.onCancel}
      create={() => api<SsoConnector>('POST', '/sso-connectors', { body: { providerName: 'OIDC', ...bodyOf(form) } })}
      onCreated={props.onCreated}
    >
      <SsoFields value={form} onChange={setForm} error={action.error} fieldError={action.fieldError} />
      <p class="hint">
        Register this callback URL at the provider: <code>{callbackUrl('sso')}</code>
      </p>
    </CreateForm>
  );
}

export function SsoConnectorDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const connector = useLoad(() => api<SsoConnector>('GET', `/sso-connectors/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={connector} back={{ to: '/connectors', label: 'Connectors' }} what="the connector">
      {(current) => (
        <>
          <RecordHeading
            title={current.connectorName}
            facts={[
              ['Connector ID', <code>{current.id}</code>],
              ['Protocol', 'OpenID Connect'],
              ['Callback URL', <code>{callbackUrl('sso')}</code>],
            ]}
          />
          <SsoSettings connector={current} onSaved={connector.set} key={`settings-${current.id}`} />
          <DeleteSection
            what="connector"
            name={current.connectorName}
            description="Users of its email domains sign in with a password or code again; its just-in-time links to organizations end."
            consequence="Users who only sign in through this provider can no longer sign in until it is set up again."
            remove={() => api('DELETE', `/sso-connectors/${encodeURIComponent(current.id)}`)}
            onDeleted={() => navigate('/connectors')}
          />
        </>
      )}
    </DetailsPage>
  );
}

function SsoSettings(props: { connector: SsoConnector; onSaved: (connector: SsoConnector) => void }) {
  const [form, setForm] = useState(() => formOf(props.connector));
  const action = useAction();
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={unshownError(action.error, CONFIG_FIELDS, BODY_FIELDS)}
        save={() =>
          api<SsoConnector>('PATCH', `/sso-connectors/${encodeURIComponent(props.connector.id)}`, {
            body: bodyOf(form, props.connector),
          })
        }
        onSaved={(updated) => {
          props.onSaved(updated);
          setForm(formOf(updated));
        }}
      >
        <SsoFields
          value={form}
          onChange={setForm}
          error={action.error}
          fieldError={action.fieldError}
          storedSecret={text(props.connector.config.clientSecret)}
        />
      </SaveForm>
    </Section>
  );
}
