import { useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorText, Loading, Section, useAction, useLoad } from '../../components/feedback.tsx';
import { Link } from '../../components/link.tsx';
import { Pager } from '../../components/table.tsx';
import { ImpersonationTable, type Impersonation } from '../impersonations/table.tsx';
import { displayName, type User } from './types.ts';

const PAGE_SIZE = 10;

/** The user's impersonation history, newest first, with Revoke for each one running and for all of them. */
export function ImpersonationHistorySection(props: { user: User }) {
  const [page, setPage] = useState(1);
  const [confirming, setConfirming] = useState(false);
  const history = useLoad(
    () => apiList<Impersonation>('/impersonations', { userId: props.user.id, page, page_size: PAGE_SIZE }),
    [props.user.id, page],
  );
  const action = useAction();
  return (
    <Section
      title="Impersonation history"
      description={
        <>
          Every exchange of a subject token for this user, as the user sees it in their account. All of them:{' '}
          <Link to="/impersonations">Impersonations</Link>.
        </>
      }
    >
      {history.error ? (
        <ErrorText error={history.error} />
      ) : !history.data ? (
        <Loading what="impersonations" />
      ) : (
        <>
          <ImpersonationTable
            caption="Impersonation history"
            rows={history.data.items}
            withUser={false}
            onRevoked={history.reload}
            empty="This user has never been impersonated."
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={history.data.total} onPage={setPage} />
        </>
      )}
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Revoke all impersonations
        </button>
      </div>
      <Dialog
        title={`Revoke every impersonation of ${displayName(props.user)}?`}
        open={confirming}
        onClose={() => setConfirming(false)}
      >
        <p>
          Every token issued by impersonating this user stops working now, and the subject tokens not yet exchanged are
          void.
        </p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={action.pending}
            onClick={async () => {
              const done = await action.run(() =>
                api('POST', `/users/${encodeURIComponent(props.user.id)}/impersonations/revoke`),
              );
              if (done === undefined) return;
              setConfirming(false);
              history.reload();
            }}
          >
            Revoke all
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
        <ErrorText error={action.error} />
      </Dialog>
    </Section>
  );
}
