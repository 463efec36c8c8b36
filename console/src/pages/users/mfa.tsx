import { api } from '../../api.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { Table } from '../../components/table.tsx';

interface Factor {
  id: string;
  type: string;
  createdAt: string;
  lastUsedAt?: string;
  remainCodes?: number;
  name?: string;
}

const TYPES: Record<string, string> = {
  Totp: 'Authenticator app (TOTP)',
  BackupCode: 'Backup codes',
  WebAuthn: 'Passkey',
};
const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** The user's second factors, without secrets; removing one is how support helps a user who lost a device. */
export function MfaSection(props: { userId: string }) {
  const path = `/users/${encodeURIComponent(props.userId)}/mfa-verifications`;
  const factors = useLoad(() => api<Factor[]>('GET', path), [path]);
  const remove = useAction();
  return (
    <Section
      title="Multi-factor authentication"
      description="Second factors the user signs in with. Remove one when the user lost it; they can then set up another."
    >
      {factors.error ? (
        <ErrorText error={factors.error} />
      ) : !factors.data ? (
        <Loading what="factors" />
      ) : (
        <Table
          caption="Second factors of this user"
          captionHidden
          rows={factors.data}
          rowKey={(factor) => factor.id}
          empty="No second factor."
          columns={[
            {
              header: 'Factor',
              cell: (factor) =>
                `${TYPES[factor.type] ?? factor.type}${factor.name ? `: ${factor.name}` : ''}` +
                (factor.remainCodes === undefined ? '' : ` (${factor.remainCodes} unused)`),
            },
            { header: 'Added', cell: (factor) => when(factor.createdAt) },
            { header: 'Last used', cell: (factor) => when(factor.lastUsedAt) },
            {
              header: 'Actions',
              numeric: true,
              cell: (factor) => (
                <button
                  type="button"
                  class="secondary small"
                  disabled={remove.pending}
                  aria-label={`Remove ${TYPES[factor.type] ?? factor.type}`}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${path}/${encodeURIComponent(factor.id)}`));
                    factors.reload();
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
    </Section>
  );
}
