import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { SelectField } from '../../components/field.tsx';
import { ErrorText, Loading, useAction, useLoad } from '../../components/feedback.tsx';
import { Link } from '../../components/link.tsx';
import { Created, CreateForm } from '../../components/list.tsx';
import { SecretBox } from '../../components/secret.tsx';
import { Table } from '../../components/table.tsx';
import { navigate } from '../../router.ts';
import { bodyOf, HOOK_FIELDS, HookFields, hookErrorAtField, hookFieldError, useHookDraft } from './form.tsx';
import type { Hook } from './types.ts';

export function WebhookList() {
  const hooks = useLoad(() => api<Hook[]>('GET', '/hooks', { query: { includeExecutionStats: 'true' } }), []);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div class="page-head">
        <h1>Webhooks</h1>
        <button type="button" onClick={() => setCreating(true)}>
          Create webhook
        </button>
      </div>
      {hooks.error ? (
        <ErrorText error={hooks.error} />
      ) : !hooks.data ? (
        <Loading what="webhooks" />
      ) : (
        <Table
          caption="Webhooks"
          captionHidden
          rows={hooks.data}
          rowKey={(hook) => hook.id}
          empty="No webhooks yet."
          columns={[
            { header: 'Name', cell: (hook) => <Link to={`/webhooks/${hook.id}`}>{hook.name || hook.id}</Link> },
            { header: 'Endpoint', cell: (hook) => <code>{hook.config.url}</code> },
            { header: 'Events', cell: (hook) => hook.events.length, numeric: true },
            { header: 'Signature', cell: (hook) => (hook.signature === 'ed25519' ? 'Ed25519' : 'HMAC-SHA256') },
            {
              header: 'Status',
              cell: (hook) =>
                hook.enabled ? 'Enabled' : hook.disabledReason ? `Disabled: ${hook.disabledReason}` : 'Disabled',
            },
            {
              header: 'Succeeded (24 h)',
              numeric: true,
              cell: (hook) =>
                hook.executionStats
                  ? `${hook.executionStats.successCount} of ${hook.executionStats.requestCount}`
                  : '—',
            },
          ]}
        />
      )}
      <Dialog
        title="Create webhook"
        open={creating}
        onClose={() => {
          setCreating(false);
          hooks.reload();
        }}
      >
        <CreateWebhook
          onClose={() => {
            setCreating(false);
            hooks.reload();
          }}
        />
      </Dialog>
    </>
  );
}

function CreateWebhook(props: { onClose: () => void }) {
  const [draft, setDraft] = useHookDraft();
  const [signature, setSignature] = useState<Hook['signature']>('hmac');
  const [created, setCreated] = useState<Hook>();
  const action = useAction();
  if (created) {
    return (
      <Created
        what="Webhook"
        name={created.name}
        open={() => navigate(`/webhooks/${created.id}`)}
        onClose={props.onClose}
      >
        {created.signature === 'ed25519' ? (
          <SecretBox
            label="Public key"
            value={created.publicKey ?? ''}
            note="Not a secret: your endpoint verifies each delivery's v1a signature with it. The webhook's page shows it too."
          />
        ) : (
          <SecretBox
            label="Signing key"
            value={created.signingKey ?? ''}
            note="Shown once: your endpoint verifies each delivery's signature with it (Standard Webhooks). Rotating it later shows a new one."
          />
        )}
      </Created>
    );
  }
  return (
    <CreateForm
      action={action}
      error={hookErrorAtField(action.error) ? undefined : action.actionError(HOOK_FIELDS)}
      onCancel={props.onClose}
      create={() => api<Hook>('POST', '/hooks', { body: { ...bodyOf(draft), signature } })}
      onCreated={setCreated}
    >
      <HookFields draft={draft} onChange={setDraft} fieldError={(field) => hookFieldError(action, field)} />
      <SelectField
        label="Signature"
        value={signature}
        onChange={setSignature}
        error={action.fieldError('signature')}
        options={[
          { value: 'hmac', label: 'HMAC-SHA256 with a shared signing key' },
          { value: 'ed25519', label: 'Ed25519 with a public key (no shared secret)' },
        ]}
        hint="Fixed once the webhook exists."
      />
    </CreateForm>
  );
}
