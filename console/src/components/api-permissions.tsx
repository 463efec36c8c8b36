import { api, apiList } from '../api.ts';
import type { Resource, Scope } from '../pages/resources/types.ts';
import { Section, useLoad } from './feedback.tsx';
import { LinkedItems } from './linked.tsx';
import { Link } from './link.tsx';

/** The management API's id: its scopes go only on machine-to-machine roles (the API refuses them on user roles). */
const MANAGEMENT_RESOURCE_ID = 'management-api';

/**
 * The API scopes a role grants (`path` is its scope list: `/roles/:id/scopes`, `/organization-roles/:id/resource-scopes`),
 * each named with its resource: remove one, or add one of any resource's scopes.
 */
export function ApiPermissions(props: {
  path: string;
  title: string;
  description: string;
  managementAllowed: boolean;
}) {
  const scopes = useLoad(() => apiList<Scope>(props.path), [props.path]);
  const resources = useLoad(() => api<Resource[]>('GET', '/resources', { query: { includeScopes: 'true' } }), []);
  const resourceName = (resourceId: string) =>
    resources.data?.find((resource) => resource.id === resourceId)?.name ?? resourceId;
  const candidates = resources.data
    ?.filter((resource) => props.managementAllowed || resource.id !== MANAGEMENT_RESOURCE_ID)
    .flatMap((resource) =>
      (resource.scopes ?? []).map((scope) => ({ value: scope.id, label: `${resource.name}: ${scope.name}` })),
    );
  return (
    <Section title={props.title} description={props.description}>
      <LinkedItems
        linked={scopes}
        caption={props.title}
        what="permissions"
        empty="No permissions yet."
        columns={[
          { header: 'Permission', cell: (scope) => <code>{scope.name}</code> },
          { header: 'API resource', cell: (scope) => resourceName(scope.resourceId) },
          { header: 'Description', cell: (scope) => scope.description || '—' },
        ]}
        removeLabel={(scope) => `Remove permission ${scope.name}`}
        unlink={(scope) => api('DELETE', `${props.path}/${encodeURIComponent(scope.id)}`)}
        add={{
          label: 'Permission to add',
          button: 'Add permission',
          field: 'scopeIds',
          candidates,
          candidatesError: resources.error,
          none: (
            <>
              No other permission to add: define scopes on an <Link to="/resources">API resource</Link> first.
            </>
          ),
          link: (id) => api('POST', props.path, { body: { scopeIds: [id] } }),
        }}
      />
    </Section>
  );
}
