import { useState } from 'preact/hooks';
import { apiList } from '../../api.ts';
import { ErrorText, Loading, Section, useLoad } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/field.tsx';
import { Pager } from '../../components/table.tsx';
import { ImpersonationTable, useApplications, type Impersonation } from './table.tsx';

const PAGE_SIZE = 25;
interface Filters {
  userId: string;
  applicationId: string;
}
const NO_FILTERS: Filters = { userId: '', applicationId: '' };

/** One status group of the list, paged on its own. */
function Group(props: {
  title: string;
  status: 'active' | 'ended';
  filters: Filters;
  version: number;
  onRevoked: () => void;
}) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      apiList<Impersonation>('/impersonations', { page, page_size: PAGE_SIZE, status: props.status, ...props.filters }),
    [page, props.filters, props.version],
  );
  return (
    <Section title={props.title}>
      {list.error ? (
        <ErrorText error={list.error} />
      ) : !list.data ? (
        <Loading what={props.title.toLowerCase()} />
      ) : (
        <>
          <ImpersonationTable
            caption={props.title}
            rows={list.data.items}
            onRevoked={props.onRevoked}
            empty={props.status === 'active' ? 'No impersonation is running.' : 'None has ended yet.'}
          />
          <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
    </Section>
  );
}

/** Every impersonation, the active ones first, each revocable while it runs. */
export function ImpersonationList() {
  const apps = useApplications();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // A revocation moves a row from the active list to the ended one: both reload.
  const [version, setVersion] = useState(0);
  const apply = (next: Filters) => {
    setDraft(next);
    setFilters(next);
  };
  const onRevoked = () => setVersion((value) => value + 1);
  return (
    <>
      <h1>Impersonations</h1>
      <p class="hint">
        One per exchange of a subject token: the token it issued works while it is active. Revoking one ends its token
        everywhere at once.
      </p>
      <form
        class="search filters"
        role="search"
        aria-label="Filter impersonations"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <TextField label="User ID" value={draft.userId} onInput={(userId) => setDraft({ ...draft, userId })} />
        <SelectField
          label="Application"
          value={draft.applicationId}
          onChange={(applicationId) => setDraft({ ...draft, applicationId })}
          options={[
            { value: '', label: 'All applications' },
            ...(apps.data ?? []).map((app) => ({ value: app.id, label: app.name })),
          ]}
        />
        <button type="submit" class="secondary">
          Filter
        </button>
        <button type="button" class="secondary" onClick={() => apply(NO_FILTERS)}>
          Clear
        </button>
      </form>
      {/* Keyed by the filters: a new filter starts each group at its first page. */}
      <Group
        key={`active-${JSON.stringify(filters)}`}
        title="Active"
        status="active"
        filters={filters}
        version={version}
        onRevoked={onRevoked}
      />
      <Group
        key={`ended-${JSON.stringify(filters)}`}
        title="Ended"
        status="ended"
        filters={filters}
        version={version}
        onRevoked={onRevoked}
      />
    </>
  );
}
