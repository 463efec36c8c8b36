import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { DeleteSection } from '../../components/delete.tsx';
import { DetailsPage, RecordHeading } from '../../components/details.tsx';
import { ErrorText, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { RotateSecretSection } from '../../components/secret.tsx';
import { navigate } from '../../router.ts';
import { DeliveriesSection } from './deliveries.tsx';
import { ReplaysSection } from './replays.tsx';
import { bodyOf, HOOK_FIELDS, HookFields, hookErrorAtField, hookFieldError, useHookDraft } from './form.tsx';
import type { Hook } from './types.ts';
import { TextField } from '../../components/field.tsx';

export function WebhookDetails(props: { params: Record<string, string> }) {
  const id = props.params.id!;
  const hook = useLoad(
    () => api<Hook>('GET', `/hooks/${encodeURIComponent(id)}`, { query: { includeExecutionStats: 'true' } }),
    [id],
  );
  // A started replay shows in the deliveries at once rather than at their next refresh.
  const [replays, setReplays] = useState(0);
  return (
    <DetailsPage record={hook} back={{ to: '/webhooks', label: 'Webhooks' }} what="the webhook">
      {(current) => (
        <>
          <RecordHeading title={current.name || current.id} badge={!current.enabled && 'Disabled'} />
          {current.disabledReason && (
            <p class="error" role="alert">
              The service disabled this webhook: {current.disabledReason}. Enable it again once the endpoint works.
            </p>
          )}
          <SettingsSection hook={current} onSaved={hook.set} key={`settings-${current.id}-${current.updatedAt}`} />
          <DeliveriesSection hookId={current.id} key={`deliveries-${replays}`} />
          <ReplaysSection hookId={current.id} onStarted={() => setReplays((value) => value + 1)} />
          <SigningKeySection hook={current} onRotated={hook.set} />
          <DeleteSection
            what="webhook"
            name={current.name || current.id}
            description="Stops all deliveries and removes their history."
            consequence="Deliveries waiting for a retry are dropped, and the delivery history goes with it."
            remove={() => api('DELETE', `/hooks/${encodeURIComponent(current.id)}`)}
            onDeleted={() => navigate('/webhooks')}
          />
        </>
      )}
    </DetailsPage>
  );
}

function SettingsSection(props: { hook: Hook; onSaved: (hook: Hook) => void }) {
  const [draft, setDraft] = useHookDraft(props.hook);
  const save = useAction();
  const test = useAction();
  const [saved, setSaved] = useState(false);
  const [tested, setTested] = useState(false);
  const path = `/hooks/${encodeURIComponent(props.hook.id)}`;
  return (
    <Section title="Settings">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          const updated = await save.run(() => api<Hook>('PATCH', path, { body: bodyOf(draft) }));
          if (updated) {
            setSaved(true);
            props.onSaved(updated);
          }
        }}
      >
        <HookFields
          draft={draft}
          onChange={setDraft}
          fieldError={(field) => hookFieldError(save.error ? save : test, field)}
        />
        <div class="actions">
          <button type="submit" disabled={save.pending}>
            Save webhook
          </button>
          <button
            type="button"
            class="secondary"
            disabled={test.pending}
            onClick={async () => {
              setTested(false);
              const { events, config } = bodyOf(draft);
              const done = await test.run(async () => {
                await api('POST', `${path}/test`, { body: { events, config } });
                return true;
              });
              setTested(Boolean(done));
            }}
          >
            Send test
          </button>
          <span role="status" class="status">
            {saved ? 'Saved.' : tested ? 'Test sent: the endpoint answered with a 2xx.' : ''}
          </span>
        </div>
        <ErrorText error={hookErrorAtField(save.error) ? undefined : save.actionError(HOOK_FIELDS)} />
        <ErrorText error={hookErrorAtField(test.error) ? undefined : test.actionError(HOOK_FIELDS)} />
      </form>
    </Section>
  );
}

function SigningKeySection(props: { hook: Hook; onRotated: (hook: Hook) => void }) {
  if (props.hook.signature === 'ed25519') {
    return (
      <RotateSecretSection
        title="Signature: Ed25519"
        button="Rotate signing key"
        description="Deliveries carry Standard Webhooks v1a signatures. Your endpoint verifies them with the public key below; the private key never leaves the service."
        confirm={{
          title: 'Rotate the signing key?',
          text: 'Deliveries are signed with a new key pair from now on (and, for a grace period, with the previous one too).',
        }}
        secret={{ label: 'Public key' }}
        rotate={async () => {
          // The new public key shows in place of the old one; the previous key keeps signing for the grace period.
          props.onRotated(await api<Hook>('PATCH', `/hooks/${encodeURIComponent(props.hook.id)}/signing-key`));
          return undefined;
        }}
      >
        <TextField
          label="Public key"
          value={props.hook.publicKey ?? ''}
          onInput={() => {}}
          readOnly
          hint="Standard Webhooks whpk_ form: base64 of the 32-byte Ed25519 public key. After a rotation the previous key keeps signing for a grace period."
        />
      </RotateSecretSection>
    );
  }
  return (
    <RotateSecretSection
      title="Signature: HMAC-SHA256"
      button="Rotate signing key"
      description="Deliveries carry Standard Webhooks v1 signatures and Logto's. Your endpoint checks them with the signing key, which the service never shows again after creation or rotation."
      confirm={{
        title: 'Rotate the signing key?',
        text: 'Deliveries are signed with the new key from now on (and, for a grace period, with the previous one too).',
      }}
      secret={{
        label: 'New signing key',
        note: 'Shown once. The previous key keeps signing, beside this one, for a grace period, so you can switch your endpoint over.',
      }}
      rotate={async () =>
        (await api<Hook>('PATCH', `/hooks/${encodeURIComponent(props.hook.id)}/signing-key`)).signingKey
      }
    />
  );
}
