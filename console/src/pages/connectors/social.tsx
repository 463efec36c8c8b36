import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../components/field.tsx';
import { CreateForm } from '../../components/list.tsx';
import { navigate } from '../../router.ts';
import {
  EMPTY_SOCIAL_CONFIG,
  SOCIAL_CONFIG_FIELDS,
  SocialConfigFields,
  socialConfig,
  socialConfigForm,
  updatedSocialConfig,
} from './social-config.tsx';
import { FACTORIES, callbackUrl, socialName, text, unshownError, type SocialConnector } from './types.ts';

const METADATA_FIELDS = ['metadata', 'syncProfile', 'connectorId'];

export function CreateSocialConnector(props: {
  onCreated: (connector: SocialConnector) => void;
  onCancel: () => void;
}) {
  const [factory, setFactory] = useState<'oidc' | 'oauth2'>('oidc');
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [logo, setLogo] = useState('');
  const [syncProfile, setSyncProfile] = useState(false);
  const [form, setForm] = useState(EMPTY_SOCIAL_CONFIG);
  const action = useAction();
  return (
    <CreateForm
      action={action}
      error={unshownError(action.error, SOCIAL_CONFIG_FIELDS, METADATA_FIELDS)}
      onCancel={props.onCancel}
      create={() =>
        api<SocialConnector>('POST', '/connectors', {
          body: {
            connectorId: factory,
            config: socialConfig(form, factory),
            syncProfile,
            metadata: {
              target: target.trim(),
              name: { en: name.trim() || target.trim() },
              ...(logo.trim() && { logo: logo.trim() }),
            },
          },
        })
      }
      onCreated={props.onCreated}
    >
      <SelectField
        label="Protocol"
        value={factory}
        options={FACTORIES}
        onChange={setFactory}
        error={action.fieldError('connectorId')}
      />
      <TextField
        label="Display name"
        value={name}
        onInput={setName}
        required
        error={action.fieldError('metadata.name')}
        hint="On the sign-in page: “Continue with …”."
      />
      <TextField
        label="Identity target"
        value={target}
        onInput={setTarget}
        required
        error={action.fieldError('metadata.target')}
        hint="A short unique key naming the identity on users (identities.<target>), such as github. It cannot change later."
      />
      <TextField
        label="Logo URL"
        type="url"
        value={logo}
        onInput={setLogo}
        error={action.fieldError('metadata.logo')}
      />
      <SocialConfigFields factory={factory} value={form} onChange={setForm} error={action.error} />
      <CheckboxField
        label="Update the profile at every sign-in"
        checked={syncProfile}
        onChange={setSyncProfile}
        error={action.fieldError('syncProfile')}
        hint="Copy the name and avatar from the provider each time, not only at registration."
      />
      <p class="hint">
        Register this callback URL at the provider: <code>{callbackUrl('social')}</code>
      </p>
    </CreateForm>
  );
}

export function SocialConnectorDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const connector = useLoad(() => api<SocialConnector>('GET', `/connectors/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={connector} back={{ to: '/connectors', label: 'Connectors' }} what="the connector">
      {(current) => (
        <>
          <RecordHeading
            title={socialName(current)}
            facts={[
              ['Connector ID', <code>{current.id}</code>],
              ['Protocol', FACTORIES.find((factory) => factory.value === current.connectorId)?.label],
              ['Identity target', <code>{current.target}</code>],
              ['Callback URL', <code>{callbackUrl('social')}</code>],
            ]}
          />
          <SocialSettings connector={current} onSaved={connector.set} key={`settings-${current.id}`} />
          <DeleteSection
            what="connector"
            name={socialName(current)}
            description="Removes “Continue with” this provider from the sign-in page. Users keep their linked identities."
            consequence="Users who only sign in through this provider can no longer sign in until it is set up again."
            remove={() => api('DELETE', `/connectors/${encodeURIComponent(current.id)}`)}
            onDeleted={() => navigate('/connectors')}
          />
        </>
      )}
    </DetailsPage>
  );
}

function SocialSettings(props: { connector: SocialConnector; onSaved: (connector: SocialConnector) => void }) {
  const { connector } = props;
  const [name, setName] = useState(socialName(connector));
  const [logo, setLogo] = useState(connector.metadata.logo ?? '');
  const [syncProfile, setSyncProfile] = useState(connector.syncProfile);
  const [form, setForm] = useState(() => socialConfigForm(connector.config));
  const action = useAction();
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={unshownError(action.error, SOCIAL_CONFIG_FIELDS, METADATA_FIELDS)}
        save={() =>
          api<SocialConnector>('PATCH', `/connectors/${encodeURIComponent(connector.id)}`, {
            body: {
              config: updatedSocialConfig(connector.config, form, connector.connectorId),
              syncProfile,
              metadata: { name: { ...connector.metadata.name, en: name.trim() }, logo: logo.trim() || null },
            },
          })
        }
        onSaved={(updated) => {
          props.onSaved(updated);
          setForm(socialConfigForm(updated.config));
        }}
      >
        <TextField
          label="Display name"
          value={name}
          onInput={setName}
          required
          error={action.fieldError('metadata.name')}
        />
        <TextField
          label="Logo URL"
          type="url"
          value={logo}
          onInput={setLogo}
          error={action.fieldError('metadata.logo')}
        />
        <SocialConfigFields
          factory={connector.connectorId}
          value={form}
          onChange={setForm}
          error={action.error}
          storedSecret={text(connector.config.clientSecret)}
        />
        <CheckboxField
          label="Update the profile at every sign-in"
          checked={syncProfile}
          onChange={setSyncProfile}
          error={action.fieldError('syncProfile')}
        />
      </SaveForm>
    </Section>
  );
}
