import { api } from '../../api.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { Table } from '../../components/table.tsx';

interface WithIdentities {
  identities: Record<string, { userId?: string; details?: Record<string, unknown> }>;
  ssoIdentities?: Array<{ id: string; issuer: string; identityId: string; ssoConnectorId: string; createdAt: number }>;
}

interface IdentityRow {
  key: string;
  kind: string;
  source: string;
  identity: string;
  target?: string;
}

/** The user's social and enterprise SSO identities; a social one can be unlinked (it is then no way to sign in). */
export function IdentitiesSection(props: { userId: string }) {
  const path = `/users/${encodeURIComponent(props.userId)}`;
  const user = useLoad(() => api<WithIdentities>('GET', path, { query: { includeSsoIdentities: 'true' } }), [path]);
  const unlink = useAction();
  const rows: IdentityRow[] = user.data
    ? [
        ...Object.entries(user.data.identities).map(([target, identity]) => ({
          key: `social-${target}`,
          kind: 'Social',
          source: target,
          identity: identity.userId ?? '—',
          target,
        })),
        ...(user.data.ssoIdentities ?? []).map((identity) => ({
          key: `sso-${identity.id}`,
          kind: 'Enterprise SSO',
          source: `${identity.ssoConnectorId} (${identity.issuer})`,
          identity: identity.identityId,
        })),
      ]
    : [];
  return (
    <Section title="Identities" description="Accounts at other identity providers the user signs in with.">
      {user.error ? (
        <ErrorText error={user.error} />
      ) : !user.data ? (
        <Loading what="identities" />
      ) : (
        <Table
          caption="Identities of this user"
          captionHidden
          rows={rows}
          rowKey={(row) => row.key}
          empty="No linked identities."
          columns={[
            { header: 'Kind', cell: (row) => row.kind },
            { header: 'Provider', cell: (row) => <code>{row.source}</code> },
            { header: 'Identity ID', cell: (row) => <code>{row.identity}</code> },
            {
              header: 'Actions',
              numeric: true,
              cell: (row) =>
                row.target ? (
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Unlink identity ${row.source}`}
                    disabled={unlink.pending}
                    onClick={async () => {
                      await unlink.run(() => api('DELETE', `${path}/identities/${encodeURIComponent(row.target!)}`));
                      user.reload();
                    }}
                  >
                    Unlink
                  </button>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
      <ErrorText error={unlink.error} />
    </Section>
  );
}
