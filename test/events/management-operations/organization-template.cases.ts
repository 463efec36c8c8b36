import { fixtures, ok, unique, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-id';

async function roleWithScopes(h: Harness, count: number) {
  const scopes = [];
  for (let i = 0; i < count; i += 1) scopes.push(await fixtures(h).organizationScope());
  const role = await fixtures(h).organizationRole({ organizationScopeIds: scopes.map((scope) => scope.id) });
  return { role, scopes };
}

export const organizationRoleEventCases: EventCase[] = [
  {
    route: 'POST /organization-roles',
    title: 'creating a role with scopes publishes Created, then Scopes.Updated with its scopes',
    async arrange(h) {
      const scopes = [await fixtures(h).organizationScope(), await fixtures(h).organizationScope()];
      const taken = await fixtures(h).organizationRole();
      return {
        path: '/organization-roles',
        params: {},
        status: 201,
        body: { name: unique('admin'), description: 'Admins', organizationScopeIds: scopes.map((scope) => scope.id) },
        async expected(res) {
          const roleScopes = await ok(h.api('GET', `/organization-roles/${res.body.id}/scopes`));
          if (roleScopes.length !== scopes.length) throw new Error('the role did not get its scopes');
          return [
            { event: 'OrganizationRole.Created', data: res.body },
            { event: 'OrganizationRole.Scopes.Updated', data: roleScopes, fields: { organizationRoleId: res.body.id } },
          ];
        },
        failures: [
          {
            why: 'unknown scope',
            path: '/organization-roles',
            body: { name: unique('r'), organizationScopeIds: [MISSING] },
            status: 422,
          },
          { why: 'name taken', path: '/organization-roles', body: { name: taken.name }, status: 409 },
          { why: 'name too long', path: '/organization-roles', body: { name: 'n'.repeat(500) }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /organization-roles',
    title: 'creating a role without scopes publishes OrganizationRole.Created only',
    async arrange() {
      return {
        path: '/organization-roles',
        params: {},
        status: 201,
        body: { name: unique('member') },
        expected: (res) => [{ event: 'OrganizationRole.Created', data: res.body }],
        failures: [
          { why: 'unknown type', path: '/organization-roles', body: { name: unique('r'), type: 'Robot' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'PATCH /organization-roles/:id',
    title: 'updating a role publishes OrganizationRole.Data.Updated',
    async arrange(h) {
      const [role, other] = [await fixtures(h).organizationRole(), await fixtures(h).organizationRole()];
      return {
        path: `/organization-roles/${role.id}`,
        params: { id: role.id },
        status: 200,
        body: { description: 'Changed' },
        expected: (res) => [{ event: 'OrganizationRole.Data.Updated', data: res.body }],
        failures: [
          { why: 'unknown role', path: `/organization-roles/${MISSING}`, body: { description: 'x' }, status: 404 },
          { why: 'name taken', path: `/organization-roles/${role.id}`, body: { name: other.name }, status: 409 },
        ],
      };
    },
  },
  {
    route: 'DELETE /organization-roles/:id',
    title: 'deleting a role publishes OrganizationRole.Deleted with a snapshot',
    async arrange(h) {
      const { role } = await roleWithScopes(h, 1);
      return {
        path: `/organization-roles/${role.id}`,
        params: { id: role.id },
        status: 204,
        expected: () => [{ event: 'OrganizationRole.Deleted', data: role }],
        failures: [{ why: 'unknown role', path: `/organization-roles/${MISSING}`, status: 404 }],
      };
    },
  },
  {
    route: 'POST /organization-roles/:id/scopes',
    title: "adding scopes publishes OrganizationRole.Scopes.Updated with the role's scopes",
    async arrange(h) {
      const { role } = await roleWithScopes(h, 1);
      const extra = await fixtures(h).organizationScope();
      return {
        path: `/organization-roles/${role.id}/scopes`,
        params: { id: role.id },
        status: 201,
        body: { organizationScopeIds: [extra.id] },
        expected: (res) => [
          { event: 'OrganizationRole.Scopes.Updated', data: res.body, fields: { organizationRoleId: role.id } },
        ],
        failures: [
          {
            why: 'unknown role',
            path: `/organization-roles/${MISSING}/scopes`,
            body: { organizationScopeIds: [extra.id] },
            status: 404,
          },
          {
            why: 'unknown scope',
            path: `/organization-roles/${role.id}/scopes`,
            body: { organizationScopeIds: [MISSING] },
            status: 422,
          },
          {
            why: 'no scopes',
            path: `/organization-roles/${role.id}/scopes`,
            body: { organizationScopeIds: [] },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PUT /organization-roles/:id/scopes',
    title: 'replacing scopes publishes OrganizationRole.Scopes.Updated with the new scopes',
    async arrange(h) {
      const { role } = await roleWithScopes(h, 2);
      const replacement = await fixtures(h).organizationScope();
      return {
        path: `/organization-roles/${role.id}/scopes`,
        params: { id: role.id },
        status: 204,
        body: { organizationScopeIds: [replacement.id] },
        expected: () => [
          { event: 'OrganizationRole.Scopes.Updated', data: [replacement], fields: { organizationRoleId: role.id } },
        ],
        failures: [
          {
            why: 'unknown scope',
            path: `/organization-roles/${role.id}/scopes`,
            body: { organizationScopeIds: [MISSING] },
            status: 422,
          },
          {
            why: 'ids of the wrong type',
            path: `/organization-roles/${role.id}/scopes`,
            body: { organizationScopeIds: [1] },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /organization-roles/:id/scopes/:organizationScopeId',
    title: 'removing a scope publishes the remaining scopes',
    async arrange(h) {
      const { role, scopes } = await roleWithScopes(h, 2);
      return {
        path: `/organization-roles/${role.id}/scopes/${scopes[0].id}`,
        params: { id: role.id, organizationScopeId: scopes[0].id },
        status: 204,
        expected: () => [
          { event: 'OrganizationRole.Scopes.Updated', data: [scopes[1]], fields: { organizationRoleId: role.id } },
        ],
        failures: [
          { why: 'scope not on the role', path: `/organization-roles/${role.id}/scopes/${MISSING}`, status: 404 },
          { why: 'unknown role', path: `/organization-roles/${MISSING}/scopes/${scopes[0].id}`, status: 404 },
        ],
      };
    },
  },
];

export const organizationScopeEventCases: EventCase[] = [
  {
    route: 'POST /organization-scopes',
    title: 'creating a scope publishes OrganizationScope.Created',
    async arrange(h) {
      const taken = await fixtures(h).organizationScope();
      return {
        path: '/organization-scopes',
        params: {},
        status: 201,
        body: { name: unique('invite'), description: 'Invite members' },
        expected: (res) => [{ event: 'OrganizationScope.Created', data: res.body }],
        failures: [
          { why: 'name taken', path: '/organization-scopes', body: { name: taken.name }, status: 409 },
          { why: 'name with a space', path: '/organization-scopes', body: { name: 'read all' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'PATCH /organization-scopes/:id',
    title: 'updating a scope publishes OrganizationScope.Data.Updated',
    async arrange(h) {
      const [scope, other] = [await fixtures(h).organizationScope(), await fixtures(h).organizationScope()];
      return {
        path: `/organization-scopes/${scope.id}`,
        params: { id: scope.id },
        status: 200,
        body: { description: 'Described' },
        expected: (res) => [{ event: 'OrganizationScope.Data.Updated', data: res.body }],
        failures: [
          { why: 'unknown scope', path: `/organization-scopes/${MISSING}`, body: { description: 'x' }, status: 404 },
          { why: 'name taken', path: `/organization-scopes/${scope.id}`, body: { name: other.name }, status: 409 },
        ],
      };
    },
  },
  {
    route: 'DELETE /organization-scopes/:id',
    title: 'deleting a scope publishes OrganizationScope.Deleted with a snapshot',
    async arrange(h) {
      const scope = await fixtures(h).organizationScope();
      await ok(h.api('POST', '/organization-roles', { name: unique('holder'), organizationScopeIds: [scope.id] }));
      return {
        path: `/organization-scopes/${scope.id}`,
        params: { id: scope.id },
        status: 204,
        expected: () => [{ event: 'OrganizationScope.Deleted', data: scope }],
        failures: [{ why: 'unknown scope', path: `/organization-scopes/${MISSING}`, status: 404 }],
      };
    },
  },
];
