import { fixtures, ok, unique, type Harness } from '../support/management/harness.ts';
import type { EventCase } from '../support/management/event-case.ts';

const MISSING = 'no-such-id';

/** An organization role holding `count` scopes of a fresh API resource, and that resource's scopes. */
async function roleWithResourceScopes(h: Harness, count: number) {
  const { resource, scopes } = await fixtures(h).resourceWithScopes(count + 1);
  const role = await fixtures(h).organizationRole({
    resourceScopeIds: scopes.slice(0, count).map((scope: { id: string }) => scope.id),
  });
  return { role, resource, held: scopes.slice(0, count), spare: scopes[count] };
}

/** Changes of an organization role's API-resource scopes publish OrganizationRole.Scopes.Updated, as in Logto. */
export const organizationRoleResourceScopeEventCases: EventCase[] = [
  {
    route: 'POST /organization-roles',
    title: 'creating a role with resource scopes only publishes Created, then Scopes.Updated with them',
    async arrange(h) {
      const { scopes } = await fixtures(h).resourceWithScopes(2);
      return {
        path: '/organization-roles',
        params: {},
        status: 201,
        body: { name: unique('api-reader'), resourceScopeIds: scopes.map((scope: { id: string }) => scope.id) },
        expected: (res) => [
          { event: 'OrganizationRole.Created', data: res.body },
          { event: 'OrganizationRole.Scopes.Updated', data: scopes, fields: { organizationRoleId: res.body.id } },
        ],
        failures: [
          {
            why: 'unknown resource scope',
            path: '/organization-roles',
            body: { name: unique('r'), resourceScopeIds: [MISSING] },
            status: 422,
          },
          {
            why: 'ids of the wrong type',
            path: '/organization-roles',
            body: { name: unique('r'), resourceScopeIds: [7] },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'POST /organization-roles/:id/resource-scopes',
    title: "adding resource scopes publishes the role's resource scopes",
    async arrange(h) {
      const { role, held, spare } = await roleWithResourceScopes(h, 1);
      return {
        path: `/organization-roles/${role.id}/resource-scopes`,
        params: { id: role.id },
        status: 201,
        body: { scopeIds: [spare.id] },
        expected: (res) => {
          if (res.body.length !== 2) throw new Error('the role did not get the scope');
          return [
            {
              event: 'OrganizationRole.Scopes.Updated',
              data: [...held, spare],
              fields: { organizationRoleId: role.id },
            },
          ];
        },
        failures: [
          {
            why: 'unknown role',
            path: `/organization-roles/${MISSING}/resource-scopes`,
            body: { scopeIds: [spare.id] },
            status: 404,
          },
          {
            why: 'unknown scope',
            path: `/organization-roles/${role.id}/resource-scopes`,
            body: { scopeIds: [MISSING] },
            status: 422,
          },
          {
            why: 'no scopes',
            path: `/organization-roles/${role.id}/resource-scopes`,
            body: { scopeIds: [] },
            status: 400,
          },
          {
            why: 'a management API scope',
            path: `/organization-roles/${role.id}/resource-scopes`,
            body: { scopeIds: [await managementScopeId(h)] },
            status: 422,
          },
        ],
      };
    },
  },
  {
    route: 'PUT /organization-roles/:id/resource-scopes',
    title: 'replacing resource scopes publishes the new set',
    async arrange(h) {
      const { role, spare } = await roleWithResourceScopes(h, 2);
      return {
        path: `/organization-roles/${role.id}/resource-scopes`,
        params: { id: role.id },
        status: 204,
        body: { scopeIds: [spare.id] },
        expected: async () => {
          const now = await ok(h.api('GET', `/organization-roles/${role.id}/resource-scopes`));
          if (now.length !== 1 || now[0].id !== spare.id) throw new Error('the scopes were not replaced');
          return [{ event: 'OrganizationRole.Scopes.Updated', data: [spare], fields: { organizationRoleId: role.id } }];
        },
        failures: [
          {
            why: 'unknown scope',
            path: `/organization-roles/${role.id}/resource-scopes`,
            body: { scopeIds: [MISSING] },
            status: 422,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /organization-roles/:id/resource-scopes/:scopeId',
    title: 'removing a resource scope publishes the remaining ones',
    async arrange(h) {
      const { role, held } = await roleWithResourceScopes(h, 2);
      return {
        path: `/organization-roles/${role.id}/resource-scopes/${held[0].id}`,
        params: { id: role.id, scopeId: held[0].id },
        status: 204,
        expected: () => [
          { event: 'OrganizationRole.Scopes.Updated', data: [held[1]], fields: { organizationRoleId: role.id } },
        ],
        failures: [
          {
            why: 'scope not on the role',
            path: `/organization-roles/${role.id}/resource-scopes/${MISSING}`,
            status: 404,
          },
          { why: 'unknown role', path: `/organization-roles/${MISSING}/resource-scopes/${held[0].id}`, status: 404 },
        ],
      };
    },
  },
];

async function managementScopeId(h: Harness): Promise<string> {
  const resources = await ok(h.api('GET', '/resources?page_size=100'));
  const management = resources.find((resource: { indicator: string }) => resource.indicator.endsWith('/api'));
  const scopes = await ok(h.api('GET', `/resources/${management.id}/scopes`));
  return scopes[0].id;
}
