import { useEffect, useId, useState } from 'preact/hooks';
import { api, apiList } from '../../api.ts';
import { CheckboxField } from '../../components/field.tsx';
import { ErrorText, Section, useAction } from '../../components/feedback.tsx';
import { Table } from '../../components/table.tsx';

interface Replay {
  id: string;
  kind: 'events' | 'failed';
  since: number;
  until: number;
  status: 'running' | 'completed' | 'failed';
  enqueued: number;
  note: string | null;
  createdAt: number;
}

const STATUS: Record<Replay['status'], string> = { running: 'Running', completed: 'Completed', failed: 'Stopped' };
const REFRESH_MS = 2000;

/** The local date-time an `<input type="datetime-local">` shows for an instant. */
function localInput(at: number): string {
  const date = new Date(at - new Date(at).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

/**
 * Sends a window of the hook's events again (or every delivery that failed since a date), under their original
 * webhook-id, and lists the replays with their progress, refreshed while one runs.
 */
export function ReplaysSection(props: { hookId: string; onStarted: () => void }) {
  const path = `/hooks/${encodeURIComponent(props.hookId)}`;
  const sinceId = useId();
  const [since, setSince] = useState(() => localInput(Date.now() - 24 * 3600 * 1000));
  const [failedOnly, setFailedOnly] = useState(false);
  const [replays, setReplays] = useState<Replay[]>([]);
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);
  const start = useAction();

  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    apiList<Replay>(`${path}/replays`, { page: 1, page_size: 10 }).then(
      (list) => {
        if (!current) return;
        setReplays(list.items);
        setError(undefined);
        if (list.items.some((replay) => replay.status === 'running'))
          timer = setTimeout(() => setTick((value) => value + 1), REFRESH_MS);
      },
      (caught: unknown) => current && setError(caught),
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [path, tick]);

  return (
    <Section
      title="Replays"
      description="Sends the events of a window again, each under its original webhook-id, so that your endpoint can drop what it already processed."
    >
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const started = await start.run(() =>
            api<Replay>('POST', `${path}/replay`, {
              body: { since: new Date(since).toISOString(), ...(failedOnly ? { failed: true } : {}) },
            }),
          );
          if (started) {
            setTick((value) => value + 1);
            props.onStarted();
          }
        }}
      >
        <div class="field">
          <label for={sinceId}>Replay events since</label>
          <input
            id={sinceId}
            type="datetime-local"
            required
            value={since}
            onInput={(event) => setSince(event.currentTarget.value)}
          />
        </div>
        <CheckboxField label="Only deliveries that failed" checked={failedOnly} onChange={setFailedOnly} />
        <div class="actions">
          <button type="submit" disabled={start.pending}>
            Start replay
          </button>
        </div>
        <ErrorText error={start.error} />
      </form>
      <ErrorText error={error} />
      <Table
        caption="Replays"
        rows={replays}
        rowKey={(replay) => replay.id}
        empty="No replays yet."
        columns={[
          { header: 'Started', cell: (replay) => new Date(replay.createdAt).toLocaleString() },
          { header: 'What', cell: (replay) => (replay.kind === 'failed' ? 'Failed deliveries' : 'Events') },
          {
            header: 'Window',
            cell: (replay) => `${new Date(replay.since).toLocaleString()} – ${new Date(replay.until).toLocaleString()}`,
          },
          {
            header: 'Status',
            cell: (replay) => (
              <>
                {STATUS[replay.status]}
                {replay.note && <span class="hint"> ({replay.note})</span>}
              </>
            ),
          },
          { header: 'Queued', cell: (replay) => replay.enqueued, numeric: true },
        ]}
      />
    </Section>
  );
}
