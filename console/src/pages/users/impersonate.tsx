import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { SecretBox } from '../../components/secret.tsx';
import { config } from '../../config.ts';
import { isConfidential, type Application } from '../applications/types.ts';
import { displayName, type User } from './types.ts';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../../../lib/impersonation/grant.ts';

interface Resource {
  id: string;
  name: string;
  indicator: string;
}

/** The token-exchange request the chosen application makes with the subject token, ready to paste. */
function exchangeCommand(options: { app: Application; subjectToken: string; resource?: string }): string {
  const { app } = options;
  const lines = [
    isConfidential(app.type)
      ? `curl -s -u "${app.id}:$CLIENT_SECRET" ${config.baseUrl}/oidc/token \\`
      : `curl -s ${config.baseUrl}/oidc/token -d client_id=${app.id} \\`,
    `  -d grant_type=${TOKEN_EXCHANGE_GRANT} \\`,
    `  -d subject_token=${options.subjectToken} \\`,
    `  -d subject_token_type=${ACCESS_TOKEN_TYPE} \\`,
    options.resource ? `  -d resource=${options.resource} \\` : undefined,
    '  -d scope=openid',
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}

/** "Impersonate": a subject token for this user, shown once with the exchange an application makes with it. */
export function ImpersonateSection(props: { user: User }) {
  const [open, setOpen] = useState(false);
  return (
    <Section
      title="Impersonation"
      description="Act as this user in an application that allows token exchange, e.g. to reproduce a support ticket. The user sees when, through which application and why; every token created and exchanged is in the impersonation log."
    >
      <div class="actions">
        <button type="button" onClick={() => setOpen(true)}>
          Impersonate
        </button>
      </div>
      <Dialog title={`Impersonate ${displayName(props.user)}`} open={open} onClose={() => setOpen(false)}>
        <ImpersonateForm user={props.user} onClose={() => setOpen(false)} />
      </Dialog>
    </Section>
  );
}

function ImpersonateForm(props: { user: User; onClose: () => void }) {
  const apps = useLoad(
    async () =>
      (await apiList<Application>('/applications', { page_size: 100 })).items.filter(
        (app) => app.customClientMetadata.allowTokenExchange === true && !app.isThirdParty,
      ),
    [],
  );
  const resources = useLoad(
    async () =>
      (await apiList<Resource>('/resources', { page_size: 100 })).items.filter(
        (resource) => resource.indicator !== config.managementApi,
      ),
    [],
  );
  const [reason, setReason] = useState('');
  const [ticket, setTicket] = useState('');
  const [appId, setAppId] = useState('');
  const [resource, setResource] = useState('');
  const [issued, setIssued] = useState<{
    subjectToken: string;
    expiresIn: number;
    app: Application;
    resource: string;
  }>();
  const action = useAction();

  if (apps.error) return <ErrorText error={apps.error} />;
  if (!apps.data) return <Loading what="applications" />;
  if (issued) {
    return (
      <div>
        <SecretBox
          label="Subject token"
          value={issued.subjectToken}
          note={`Shown once. It works for one exchange, within ${Math.round(issued.expiresIn / 60)} minutes.`}
        />
        <SecretBox
          label="Token exchange request"
          multiline
          value={exchangeCommand({
            app: issued.app,
            subjectToken: issued.subjectToken,
            resource: issued.resource || undefined,
          })}
          note={`Run by ${issued.app.name}${isConfidential(issued.app.type) ? ', with its client secret in CLIENT_SECRET' : ''}: the answer is an access token of ${displayName(props.user)}.`}
        />
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }
  if (apps.data.length === 0) {
    return (
      <p role="alert" class="error">
        No application allows token exchange. Switch on “Allow token exchange” in the settings of the application that
        will act as the user (<Link to="/applications">Applications</Link>).
      </p>
    );
  }
  const chosen = apps.data.find((app) => app.id === appId) ?? apps.data[0]!;
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await action.run(() =>
          api<{ subjectToken: string; expiresIn: number }>('POST', '/subject-tokens', {
            body: {
              userId: props.user.id,
              reason: reason.trim(),
              ...(ticket.trim() && { context: { ticket: ticket.trim() } }),
            },
          }),
        );
        if (created) setIssued({ ...created, app: chosen, resource });
      }}
    >
      <TextField
        label="Reason"
        value={reason}
        onInput={setReason}
        required
        autoComplete="off"
        hint="Why you act as this user, in a sentence: shown to them in their account's impersonation history (and in the email they get, when that is on)."
        error={action.fieldError('reason')}
      />
      <TextField
        label="Ticket ID"
        value={ticket}
        onInput={setTicket}
        autoComplete="off"
        hint="Optional, private: stored with the token as its context ({ ticket }), which custom claims can read; never shown to the user."
        error={action.fieldError('context')}
      />
      <SelectField
        label="Application"
        value={chosen.id}
        onChange={setAppId}
        options={apps.data.map((app) => ({ value: app.id, label: app.name }))}
        hint="The application that exchanges the token: only those that allow token exchange."
      />
      <SelectField
        label="API resource"
        value={resource}
        onChange={setResource}
        options={[
          { value: '', label: 'None: a token for the userinfo endpoint' },
          ...(resources.data ?? []).map((entry) => ({ value: entry.indicator, label: entry.name })),
        ]}
        hint="The API the exchanged token is for; its scopes are those the user's roles grant there."
      />
      <div class="actions">
        <button type="submit" disabled={action.pending}>
          Create subject token
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
      <ErrorText error={action.actionError(['reason', 'context'])} />
    </form>
  );
}
