import { fixtures, ok, unique } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-role';

export const roleEventCases: EventCase[] = [
  {
    route: 'POST /roles',
    title: 'creating a role with scopes publishes Role.Created, then Role.Scopes.Updated with its scopes',
    async arrange(h) {
      const { scopes } = await fixtures(h).resourceWithScopes(2);
      const taken = await fixtures(h).role();
      const scopeIds = scopes.map((scope: { id: string }) => scope.id);
      return {
        path: '/roles',
        params: {},
        status: 201,
        body: { name: unique('editor'), description: 'Edits', scopeIds },
        async expected(res) {
          const roleScopes = await ok(h.api('GET', `/roles/${res.body.id}/scopes`));
          if (roleScopes.length !== scopes.length) throw new Error('the role did not get its scopes');
          return [
            { event: 'Role.Created', data: res.body },
            { event: 'Role.Scopes.Updated', data: roleScopes, fields: { roleId: res.body.id } },
          ];
        },
        failures: [
          {
            why: 'unknown scope',
            path: '/roles',
            body: { name: unique('r'), scopeIds: ['no-such-scope'] },
            status: 404,
          },
          { why: 'name taken', path: '/roles', body: { name: taken.name, scopeIds }, status: 409 },
          { why: 'unknown role type', path: '/roles', body: { name: unique('r'), type: 'Robot' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /roles',
    title: 'creating a role without scopes publishes Role.Created only',
    async arrange() {
      return {
        path: '/roles',
        params: {},
        status: 201,
        body: { name: unique('viewer'), scopeIds: [] },
        expected: (res) => [{ event: 'Role.Created', data: res.body }],
        failures: [{ why: 'empty name', path: '/roles', body: { name: '  ' }, status: 400 }],
      };
    },
  },
  {
    route: 'PATCH /roles/:id',
    title: 'updating a role publishes Role.Data.Updated',
    async arrange(h) {
      const [role, other] = [await fixtures(h).role(), await fixtures(h).role()];
      return {
        path: `/roles/${role.id}`,
        params: { id: role.id },
        status: 200,
        body: { description: 'Changed', isDefault: false },
        expected: (res) => [{ event: 'Role.Data.Updated', data: res.body }],
        failures: [
          { why: 'unknown role', path: `/roles/${MISSING}`, body: { description: 'x' }, status: 404 },
          { why: 'name taken', path: `/roles/${role.id}`, body: { name: other.name }, status: 409 },
          { why: 'type is not updatable', path: `/roles/${role.id}`, body: { type: 'User' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /roles/:id',
    title: 'deleting a role publishes Role.Deleted with a snapshot',
    async arrange(h) {
      const role = await fixtures(h).role();
      return {
        path: `/roles/${role.id}`,
        params: { id: role.id },
        status: 204,
        expected: () => [{ event: 'Role.Deleted', data: role }],
        failures: [
          { why: 'unknown role', path: `/roles/${MISSING}`, status: 404 },
          { why: 'protected role', path: '/roles/management-api-admin', status: 422 },
        ],
      };
    },
  },
  {
    route: 'POST /roles/:id/scopes',
    title: "adding scopes publishes Role.Scopes.Updated with the role's scopes",
    async arrange(h) {
      const { scopes } = await fixtures(h).resourceWithScopes(2);
      const role = await fixtures(h).role({ scopeIds: [scopes[0].id] });
      return {
        path: `/roles/${role.id}/scopes`,
        params: { id: role.id },
        status: 201,
        body: { scopeIds: [scopes[1].id] },
        expected: (res) => [{ event: 'Role.Scopes.Updated', data: res.body, fields: { roleId: role.id } }],
        failures: [
          { why: 'unknown role', path: `/roles/${MISSING}/scopes`, body: { scopeIds: [scopes[1].id] }, status: 404 },
          {
            why: 'unknown scope',
            path: `/roles/${role.id}/scopes`,
            body: { scopeIds: ['no-such-scope'] },
            status: 404,
          },
          { why: 'no scopes', path: `/roles/${role.id}/scopes`, body: { scopeIds: [] }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /roles/:id/scopes/:scopeId',
    title: 'removing a scope publishes Role.Scopes.Updated with the remaining scopes',
    async arrange(h) {
      const { scopes } = await fixtures(h).resourceWithScopes(2);
      const role = await fixtures(h).role({ scopeIds: scopes.map((scope: { id: string }) => scope.id) });
      return {
        path: `/roles/${role.id}/scopes/${scopes[0].id}`,
        params: { id: role.id, scopeId: scopes[0].id },
        status: 204,
        async expected() {
          return [
            {
              event: 'Role.Scopes.Updated',
              data: await ok(h.api('GET', `/roles/${role.id}/scopes`)),
              fields: { roleId: role.id },
            },
          ];
        },
        failures: [
          { why: 'unknown role', path: `/roles/${MISSING}/scopes/${scopes[0].id}`, status: 404 },
          { why: 'scope not on the role', path: `/roles/${role.id}/scopes/no-such-scope`, status: 404 },
        ],
      };
    },
  },
];

export const scopeEventCases: EventCase[] = [
  {
    route: 'POST /resources/:resourceId/scopes',
    title: 'creating a scope publishes Scope.Created',
    async arrange(h) {
      const { resource, scopes } = await fixtures(h).resourceWithScopes(1);
      return {
        path: `/resources/${resource.id}/scopes`,
        params: { resourceId: resource.id },
        status: 201,
        body: { name: 'write:things', description: 'Write things' },
        expected: (res) => [{ event: 'Scope.Created', data: res.body }],
        failures: [
          { why: 'unknown resource', path: '/resources/no-such-resource/scopes', body: { name: 'a' }, status: 404 },
          { why: 'name taken', path: `/resources/${resource.id}/scopes`, body: { name: scopes[0].name }, status: 409 },
          { why: 'name with a space', path: `/resources/${resource.id}/scopes`, body: { name: 'a b' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'PATCH /resources/:resourceId/scopes/:scopeId',
    title: 'updating a scope publishes Scope.Data.Updated',
    async arrange(h) {
      const { resource, scopes } = await fixtures(h).resourceWithScopes(2);
      const [scope, other] = scopes;
      return {
        path: `/resources/${resource.id}/scopes/${scope.id}`,
        params: { resourceId: resource.id, scopeId: scope.id },
        status: 200,
        body: { description: 'Now described' },
        expected: (res) => [{ event: 'Scope.Data.Updated', data: res.body }],
        failures: [
          {
            why: 'unknown scope',
            path: `/resources/${resource.id}/scopes/no-such-scope`,
            body: { description: 'x' },
            status: 404,
          },
          {
            why: 'name taken',
            path: `/resources/${resource.id}/scopes/${scope.id}`,
            body: { name: other.name },
            status: 409,
          },
          {
            why: 'description of the wrong type',
            path: `/resources/${resource.id}/scopes/${scope.id}`,
            body: { description: 1 },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /resources/:resourceId/scopes/:scopeId',
    title: 'deleting a scope publishes Scope.Deleted with a snapshot',
    async arrange(h) {
      const { resource, scopes } = await fixtures(h).resourceWithScopes(1);
      return {
        path: `/resources/${resource.id}/scopes/${scopes[0].id}`,
        params: { resourceId: resource.id, scopeId: scopes[0].id },
        status: 204,
        expected: () => [{ event: 'Scope.Deleted', data: scopes[0] }],
        failures: [{ why: 'unknown scope', path: `/resources/${resource.id}/scopes/no-such-scope`, status: 404 }],
      };
    },
  },
];
