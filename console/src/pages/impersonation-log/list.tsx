import { useState } from 'preact/hooks';
import { apiList } from '../../api.ts';
import { ErrorText, Loading, useLoad } from '../../components/feedback.tsx';
import { TextField } from '../../components/field.tsx';
import { Link } from '../../components/link.tsx';
import { Pager, Table } from '../../components/table.tsx';
import type { ImpersonationRecord as AuditRecord } from '../../../../lib/impersonation/record.ts';

const EVENTS: Record<AuditRecord['type'], string> = {
  'SubjectToken.Created': 'Token created',
  'SubjectToken.Refused': 'Token refused',
  'TokenExchange.Succeeded': 'Exchanged',
  'TokenExchange.Failed': 'Exchange refused',
};

const PAGE_SIZE = 25;
interface Filters {
  userId: string;
  applicationId: string;
  subjectTokenRef: string;
}
const NO_FILTERS: Filters = { userId: '', applicationId: '', subjectTokenRef: '' };

/** The impersonation audit: who created a subject token for whom, which application exchanged it, as whom, for what. */
export function ImpersonationLog() {
  const [page, setPage] = useState(1);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const log = useLoad(
    () => apiList<AuditRecord>('/impersonation-logs', { page, page_size: PAGE_SIZE, ...filters }),
    [page, filters],
  );
  const apply = (next: Filters) => {
    setDraft(next);
    setFilters(next);
    setPage(1);
  };
  const dash = (value: string | null) => value ?? '—';
  return (
    <>
      <h1>Impersonation log</h1>
      <p class="hint">Every subject token created, every exchange of one, and every exchange refused, newest first.</p>
      <form
        class="search filters"
        role="search"
        aria-label="Filter the log"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <TextField label="User ID" value={draft.userId} onInput={(userId) => setDraft({ ...draft, userId })} />
        <TextField
          label="Application ID"
          value={draft.applicationId}
          onInput={(applicationId) => setDraft({ ...draft, applicationId })}
        />
        <TextField
          label="Token reference"
          value={draft.subjectTokenRef}
          onInput={(subjectTokenRef) => setDraft({ ...draft, subjectTokenRef })}
        />
        <button type="submit" class="secondary">
          Filter
        </button>
        <button type="button" class="secondary" onClick={() => apply(NO_FILTERS)}>
          Clear
        </button>
      </form>
      {log.error ? (
        <ErrorText error={log.error} />
      ) : !log.data ? (
        <Loading what="the log" />
      ) : (
        <>
          <Table
            caption="Impersonation log"
            captionHidden
            rows={log.data.items}
            rowKey={(record) => record.id}
            empty="Nothing recorded."
            columns={[
              { header: 'Time', cell: (record) => new Date(record.createdAt).toLocaleString() },
              { header: 'Event', cell: (record) => EVENTS[record.type] },
              {
                header: 'User',
                cell: (record) => (record.userId ? <Link to={`/users/${record.userId}`}>{record.userId}</Link> : '—'),
              },
              { header: 'Created by', cell: (record) => <code>{dash(record.createdBy)}</code> },
              {
                header: 'Application',
                cell: (record) =>
                  record.applicationId ? (
                    <Link to={`/applications/${record.applicationId}`}>{record.applicationId}</Link>
                  ) : (
                    '—'
                  ),
              },
              { header: 'Actor', cell: (record) => dash(record.actorUserId) },
              { header: 'Resource', cell: (record) => dash(record.resource) },
              { header: 'Scope', cell: (record) => dash(record.scope) },
              {
                header: 'Refusal',
                cell: (record) => (record.error ? `${record.error}: ${record.errorDescription ?? ''}` : '—'),
              },
              {
                header: 'Token',
                cell: (record) =>
                  record.subjectTokenRef ? (
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Show every record of token ${record.subjectTokenRef}`}
                      onClick={() => apply({ ...NO_FILTERS, subjectTokenRef: record.subjectTokenRef! })}
                    >
                      Trail
                    </button>
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={log.data.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
