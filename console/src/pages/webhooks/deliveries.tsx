import { useEffect, useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { ErrorText, Section, useAction } from '../../components/feedback.tsx';
import { SelectField } from '../../components/field.tsx';
import { Pager, Table } from '../../components/table.tsx';

import type { Delivery } from '../../../../lib/webhooks/delivery.ts';

const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
  { value: 'exhausted', label: 'Exhausted (retries used up)' },
] as const;
type StatusFilter = (typeof STATUSES)[number]['value'];
const LABELS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  exhausted: 'Exhausted',
};

/** How often the table asks for news while the page is visible. */
const REFRESH_MS = 2000;
const PAGE_SIZE = 20;

/** A pending delivery that was tried already waits for its next attempt: say when. */
function statusText(delivery: Delivery): string {
  if (delivery.status === 'pending' && delivery.attempts > 0 && delivery.nextRetryAt) {
    return `Retrying at ${new Date(delivery.nextRetryAt).toLocaleTimeString()}`;
  }
  return LABELS[delivery.status];
}

function response(delivery: Delivery): string {
  if (delivery.lastResponseStatus !== null) {
    return `${delivery.lastResponseStatus}${delivery.lastResponseExcerpt ? ` ${delivery.lastResponseExcerpt}` : ''}`;
  }
  return delivery.lastError ?? (delivery.attempts === 0 ? 'Not sent yet' : '—');
}

/**
 * A hook's deliveries, newest first, refreshed on their own every few seconds while the tab is visible, each with
 * a "Resend" (a new delivery of the same payload).
 */
export function DeliveriesSection(props: { hookId: string }) {
  const path = `/hooks/${encodeURIComponent(props.hookId)}/deliveries`;
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<StatusFilter>('');
  const [list, setList] = useState<{ items: Delivery[]; total: number }>();
  const [error, setError] = useState<unknown>();
  const [updatedAt, setUpdatedAt] = useState<number>();
  const [tick, setTick] = useState(0);
  const resend = useAction();
  const [resent, setResent] = useState<string>();

  useEffect(() => {
    let current = true;
    apiList<Delivery>(path, { page, page_size: PAGE_SIZE, status: status || undefined }).then(
      (result) => {
        if (!current) return;
        setList(result);
        setError(undefined);
        setUpdatedAt(Date.now());
      },
      (caught: unknown) => current && setError(caught),
    );
    const timer = setTimeout(() => {
      if (document.visibilityState === 'visible') setTick((value) => value + 1);
      else document.addEventListener('visibilitychange', () => setTick((value) => value + 1), { once: true });
    }, REFRESH_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [path, page, status, tick]);

  return (
    <Section
      title="Deliveries"
      description="Every event sent to this endpoint, newest first. The table refreshes on its own."
    >
      <div class="toolbar">
        <SelectField
          label="Status"
          value={status}
          options={STATUSES}
          onChange={(value) => {
            setStatus(value);
            setPage(1);
          }}
        />
        <p class="hint">{updatedAt ? `Updated ${new Date(updatedAt).toLocaleTimeString()}` : 'Loading…'}</p>
      </div>
      <ErrorText error={error} />
      <span role="status" class="status">
        {resent ? `Resent as a new delivery ${resent}.` : ''}
      </span>
      <ErrorText error={resend.error} />
      {list && (
        <>
          <Table
            caption="Deliveries"
            captionHidden
            rows={list.items}
            rowKey={(delivery) => delivery.id}
            empty="No deliveries yet."
            columns={[
              {
                header: 'Event',
                cell: (delivery) => (
                  <>
                    {delivery.event}
                    {delivery.replayId ? (
                      <span class="hint"> (replay)</span>
                    ) : (
                      delivery.resentFrom && <span class="hint"> (resent)</span>
                    )}
                  </>
                ),
              },
              { header: 'Sequence', cell: (delivery) => delivery.sequence ?? '—', numeric: true },
              { header: 'Version', cell: (delivery) => delivery.version ?? '—', numeric: true },
              {
                header: 'Status',
                cell: (delivery) => <span class={`status-${delivery.status}`}>{statusText(delivery)}</span>,
              },
              { header: 'Attempts', cell: (delivery) => delivery.attempts, numeric: true },
              {
                header: 'Latency',
                cell: (delivery) =>
                  delivery.lastLatencyMs === null ? '—' : `${Math.round(delivery.lastLatencyMs)} ms`,
                numeric: true,
              },
              { header: 'Response', cell: (delivery) => <span class="excerpt">{response(delivery)}</span> },
              { header: 'Time', cell: (delivery) => new Date(delivery.createdAt).toLocaleString() },
              {
                header: 'Actions',
                numeric: true,
                cell: (delivery) => (
                  <button
                    type="button"
                    class="secondary small"
                    disabled={resend.pending}
                    aria-label={`Resend ${delivery.event} delivery ${delivery.id}`}
                    onClick={async () => {
                      setResent(undefined);
                      const copy = await resend.run(() =>
                        api<Delivery>('POST', `${path}/${encodeURIComponent(delivery.id)}/resend`),
                      );
                      if (copy) {
                        setResent(copy.id);
                        setPage(1);
                        setTick((value) => value + 1);
                      }
                    }}
                  >
                    Resend
                  </button>
                ),
              },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.total} onPage={setPage} />
        </>
      )}
    </Section>
  );
}
