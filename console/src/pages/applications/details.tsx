import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading, SaveForm } from '../../components/details.tsx';
import { ErrorText, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { CheckboxField, LinesField, Switch, TextField } from '../../components/field.tsx';
import { RotateSecretSection } from '../../components/secret.tsx';
import { RoleAssignments } from '../../components/roles.tsx';
import { navigate } from '../../router.ts';
import { isConfidential, typeLabel, type Application } from './types.ts';

export function ApplicationDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const app = useLoad(() => api<Application>('GET', `/applications/${encodeURIComponent(id)}`), [id]);
  return (
    <DetailsPage record={app} back={{ to: '/applications', label: 'Applications' }} what="the application">
      {(current) => (
        <>
          <RecordHeading
            title={current.name}
            facts={[
              ['Client ID', <code>{current.id}</code>],
              ['Type', typeLabel(current.type)],
              ['Created', new Date(current.createdAt).toLocaleString()],
            ]}
          />
          <SettingsSection app={current} onSaved={app.set} key={`settings-${current.id}`} />
          <TokenSection app={current} onSaved={app.set} key={`tokens-${current.id}`} />
          {isConfidential(current.type) && <SecretSection app={current} />}
          {current.type === 'MachineToMachine' && (
            <RoleAssignments
              path={`/applications/${encodeURIComponent(current.id)}/roles`}
              roleType="MachineToMachine"
              holder="this application"
              description="Machine-to-machine roles give this application API scopes with the client-credentials grant."
            />
          )}
          <DeleteSection
            what="application"
            name={current.name}
            description="Revokes every token and grant the application holds. This cannot be undone."
            consequence="Its sign-ins, tokens and role assignments end now."
            remove={() => api('DELETE', `/applications/${encodeURIComponent(current.id)}`)}
            onDeleted={() => navigate('/applications')}
          />
        </>
      )}
    </DetailsPage>
  );
}

function SettingsSection(props: { app: Application; onSaved: (app: Application) => void }) {
  const { app } = props;
  const [name, setName] = useState(app.name);
  const [description, setDescription] = useState(app.description ?? '');
  const [redirectUris, setRedirectUris] = useState(app.oidcClientMetadata.redirectUris);
  const [postLogout, setPostLogout] = useState(app.oidcClientMetadata.postLogoutRedirectUris);
  const [thirdParty, setThirdParty] = useState(app.isThirdParty);
  const action = useAction();
  const interactive = app.type !== 'MachineToMachine';
  const fields = ['name', 'description', 'isThirdParty', 'oidcClientMetadata'];
  return (
    <Section title="Settings">
      <SaveForm
        action={action}
        error={action.actionError(fields)}
        save={() =>
          api<Application>('PATCH', `/applications/${encodeURIComponent(app.id)}`, {
            body: {
              name,
              description: description || null,
              isThirdParty: thirdParty,
              ...(interactive && {
                oidcClientMetadata: {
                  redirectUris: redirectUris.filter(Boolean),
                  postLogoutRedirectUris: postLogout.filter(Boolean),
                },
              }),
            },
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
        {interactive && (
          <>
            <LinesField
              label="Redirect URIs"
              value={redirectUris}
              onInput={setRedirectUris}
              error={action.fieldError('oidcClientMetadata.redirectUris')}
              hint="One per line: where the sign-in sends users back with a code."
            />
            <LinesField
              label="Post sign-out redirect URIs"
              value={postLogout}
              onInput={setPostLogout}
              error={action.fieldError('oidcClientMetadata.postLogoutRedirectUris')}
              hint="One per line."
            />
          </>
        )}
        <CheckboxField
          label="Third-party application"
          checked={thirdParty}
          onChange={setThirdParty}
          error={action.fieldError('isThirdParty')}
          hint="Users are asked for consent; token exchange is never allowed."
        />
      </SaveForm>
    </Section>
  );
}

function TokenSection(props: { app: Application; onSaved: (app: Application) => void }) {
  const { app } = props;
  const exchange = useAction();
  const grants = useAction();
  const [maxGrants, setMaxGrants] = useState(app.customClientMetadata.maxAllowedGrants?.toString() ?? '');
  const [grantsSaved, setGrantsSaved] = useState(false);
  // The API replaces customClientMetadata whole: every change sends the others as they are.
  const save = (changes: Record<string, unknown>) =>
    api<Application>('PATCH', `/applications/${encodeURIComponent(app.id)}`, {
      body: { customClientMetadata: { ...app.customClientMetadata, ...changes } },
    });
  const allowed = app.customClientMetadata.allowTokenExchange === true;
  return (
    <Section title="Tokens" description="Settings the token endpoint applies to this application.">
      <Switch
        label="Allow token exchange"
        checked={allowed}
        busy={exchange.pending}
        disabled={app.isThirdParty}
        description={
          app.isThirdParty
            ? 'Third-party applications can never use token exchange: they cannot receive impersonated tokens.'
            : 'Lets this application exchange subject tokens for tokens of the user they name (impersonation, RFC 8693).'
        }
        error={exchange.error ? String((exchange.error as Error).message) : undefined}
        onChange={async (checked) => {
          const updated = await exchange.run(() => save({ allowTokenExchange: checked }));
          if (updated) props.onSaved(updated);
        }}
      />
      {app.type !== 'MachineToMachine' && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            setGrantsSaved(false);
            const value = maxGrants.trim() === '' ? undefined : Number(maxGrants);
            const updated = await grants.run(() => save({ maxAllowedGrants: value }));
            if (updated) {
              props.onSaved(updated);
              setGrantsSaved(true);
            }
          }}
        >
          <TextField
            label="Maximum grants per user"
            type="number"
            min="1"
            max="10000"
            inputMode="numeric"
            value={maxGrants}
            onInput={setMaxGrants}
            error={grants.fieldError('customClientMetadata.maxAllowedGrants')}
            hint="Past this many live sign-ins of one user, the oldest are revoked. Empty: no limit."
          />
          <div class="actions">
            <button type="submit" class="secondary" disabled={grants.pending}>
              Save limit
            </button>
            <span role="status" class="status">
              {grantsSaved ? 'Saved.' : ''}
            </span>
          </div>
          <ErrorText error={grants.actionError(['customClientMetadata.maxAllowedGrants'])} />
        </form>
      )}
    </Section>
  );
}

function SecretSection(props: { app: Application }) {
  return (
    <RotateSecretSection
      title="Client secret"
      description="The application authenticates with it. The service stores only a digest."
      button="Rotate secret"
      confirm={{
        title: 'Rotate the client secret?',
        text: 'The current secret stops working at once: the application needs the new one before its next token request.',
      }}
      secret={{ label: 'New client secret' }}
      rotate={async () =>
        (await api<Application>('POST', `/applications/${encodeURIComponent(props.app.id)}/secret`)).secret
      }
    />
  );
}
