import { useState } from 'preact/hooks';
import { api, apiList } from '../api.ts';
import type { Resource, Scope } from '../pages/resources/types.ts';
import { ErrorText, Loading, Section, useAction, useLoad } from './feedback.tsx';
import { SelectField } from './field.tsx';
import { Link } from './link.tsx';
import { Table } from './table.tsx';

/** The management API's id: its scopes go only on machine-to-machine roles (the API refuses them on user roles). */
const MANAGEMENT_RESOURCE_ID = 'management-api';

/**
 * The API scopes a role grants (`path` is its scope list: `/roles/:id/scopes`, `/organization-roles/:id/resource-scopes`),
 * each named with its resource: remove one, or add one of any resource's scopes.
 */
export function ApiPermissions(props: { path: string; title: string; description: string; managementAllowed: boolean }) {
  const scopes = useLoad(() => apiList<Scope>(props.path), [props.path]);
  const resources = useLoad(() => api<Resource[]>('GET', '/resources', { query: { includeScopes: 'true' } }), []);
  const [choice, setChoice] = useState('');
  const add = useAction();
  const remove = useAction();
  const resourceName = (resourceId: string) => resources.data?.find((resource) => resource.id === resourceId)?.name ?? resourceId;
  const held = new Set(scopes.data?.items.map((scope) => scope.id));
  const options = (resources.data ?? [])
    .filter((resource) => props.managementAllowed || resource.id !== MANAGEMENT_RESOURCE_ID)
    .flatMap((resource) => (resource.scopes ?? [])
      .filter((scope) => !held.has(scope.id))
      .map((scope) => ({ value: scope.id, label: `${resource.name}: ${scope.name}` })));
  const selected = options.some((option) => option.value === choice) ? choice : options[0]?.value ?? '';
  return (
    <Section title={props.title} description={props.description}>
      {scopes.error ? <ErrorText error={scopes.error} /> : !scopes.data ? <Loading what="permissions" /> : (
        <Table
          caption={props.title} captionHidden rows={scopes.data.items} rowKey={(scope) => scope.id} empty="No permissions yet."
          columns={[
            { header: 'Permission', cell: (scope) => <code>{scope.name}</code> },
            { header: 'API resource', cell: (scope) => resourceName(scope.resourceId) },
            { header: 'Description', cell: (scope) => scope.description || '—' },
            {
              header: 'Actions', numeric: true,
              cell: (scope) => (
                <button
                  type="button" class="secondary small" aria-label={`Remove permission ${scope.name}`} disabled={remove.pending}
                  onClick={async () => {
                    await remove.run(() => api('DELETE', `${props.path}/${encodeURIComponent(scope.id)}`));
                    scopes.reload();
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
      {resources.error ? <ErrorText error={resources.error} /> : options.length === 0 ? (
        <p class="hint">{resources.data ? <>No other permission to add: define scopes on an <Link to="/resources">API resource</Link> first.</> : ''}</p>
      ) : (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            await add.run(() => api('POST', props.path, { body: { scopeIds: [selected] } }));
            scopes.reload();
          }}
        >
          <SelectField label="Permission to add" value={selected} onChange={setChoice} options={options} error={add.fieldError('scopeIds')} />
          <div class="actions"><button type="submit" class="secondary" disabled={add.pending}>Add permission</button></div>
          <ErrorText error={add.actionError(['scopeIds'])} />
        </form>
      )}
    </Section>
  );
}

