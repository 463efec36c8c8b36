import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, useAction, useLoad } from '../../components/feedback.tsx';
import { Link } from '../../components/link.tsx';
import { Table, type Column } from '../../components/table.tsx';
import type { Impersonation } from '../../../../lib/impersonation/record.ts';
import type { Application } from '../applications/types.ts';
import { displayName, type User } from '../users/types.ts';

export type { Impersonation };

const STATUS: Record<Impersonation['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };
const time = (ms: number) => new Date(ms).toLocaleString();

/** Revoke, after a confirmation that says what ends; `onRevoked` once the API has revoked it. */
function RevokeButton(props: { impersonation: Impersonation; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const { impersonation } = props;
  return (
    <>
      <button type="button" class="danger small" onClick={() => setConfirming(true)}>
        Revoke
      </button>
      <Dialog title="Revoke this impersonation?" open={confirming} onClose={() => setConfirming(false)}>
        <p>
          The token issued to <code>{impersonation.applicationId}</code> for user <code>{impersonation.userId}</code>{' '}
          stops working now: introspection answers it inactive, the userinfo endpoint and the Account API refuse it, and
          resource servers learn of it from the revocation listing and the Impersonation.Revoked event.
        </p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={action.pending}
            onClick={async () => {
              const done = await action.run(() =>
                api('POST', `/impersonations/${encodeURIComponent(impersonation.id)}/revoke`),
              );
              if (done === undefined) return;
              setConfirming(false);
              props.onRevoked();
            }}
          >
            Revoke impersonation
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
        <ErrorText error={action.error} />
      </Dialog>
    </>
  );
}

/** Application names by id, for rows that name applications (their first 100, as the console's pickers do). */
export function useApplications() {
  return useLoad(async () => (await apiList<Application>('/applications', { page_size: 100 })).items, []);
}

/** How the rows' users (impersonated and acting) are named: each read once; one that is gone keeps its id. */
function useUserNames(rows: Impersonation[]) {
  const ids = [...new Set(rows.flatMap((row) => [row.userId, row.actorUserId ?? []].flat()))].sort();
  const names = useLoad(
    async () =>
      new Map(
        await Promise.all(
          ids.map(async (id) => {
            const user = await api<User>('GET', `/users/${encodeURIComponent(id)}`).catch(() => undefined);
            return [id, user ? displayName(user) : id] as const;
          }),
        ),
      ),
    [ids.join(' ')],
  );
  return (id: string) => names.data?.get(id) ?? id;
}

/** Impersonations as rows: when, of whom, through which application, who acted, why, until when, and Revoke while active. */
export function ImpersonationTable(props: {
  caption: string;
  rows: Impersonation[];
  empty: string;
  onRevoked: () => void;
  withUser?: boolean;
}) {
  const apps = useApplications();
  const appName = (id: string) => apps.data?.find((app) => app.id === id)?.name ?? id;
  const userName = useUserNames(props.rows);
  const columns: Array<Column<Impersonation>> = [
    { header: 'Started', cell: (row) => time(row.issuedAt) },
    ...(props.withUser === false
      ? []
      : [
          {
            header: 'User',
            cell: (row: Impersonation) => <Link to={`/users/${row.userId}`}>{userName(row.userId)}</Link>,
          },
        ]),
    {
      header: 'Application',
      cell: (row) => <Link to={`/applications/${row.applicationId}`}>{appName(row.applicationId)}</Link>,
    },
    {
      header: 'Actor',
      cell: (row) =>
        row.actorUserId ? <Link to={`/users/${row.actorUserId}`}>{userName(row.actorUserId)}</Link> : '—',
    },
    { header: 'Reason', cell: (row) => row.reason ?? '—' },
    { header: 'Status', cell: (row) => <span class={`status-${row.status}`}>{STATUS[row.status]}</span> },
    { header: 'Ends', cell: (row) => time(row.revokedAt ?? row.expiresAt) },
    {
      header: 'Actions',
      cell: (row) => (row.status === 'active' ? <RevokeButton impersonation={row} onRevoked={props.onRevoked} /> : '—'),
    },
  ];
  return (
    <Table
      caption={props.caption}
      captionHidden
      rows={props.rows}
      rowKey={(row) => row.id}
      empty={props.empty}
      columns={columns}
    />
  );
}
