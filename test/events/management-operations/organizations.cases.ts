import { fixtures, ok, unique, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-organization';

/** An organization with two member users and one member application. */
async function populated(h: Harness) {
  const make = fixtures(h);
  const organization = await make.organization();
  const members = [await make.member(organization.id), await make.member(organization.id)];
  const app = await make.m2mApplication();
  await ok(h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [app.id] }));
  return { organization, members, app };
}

export const organizationEventCases: EventCase[] = [
  {
    route: 'POST /organizations',
    title: 'creating an organization publishes Organization.Created',
    async arrange() {
      return {
        path: '/organizations',
        params: {},
        status: 201,
        body: { name: unique('Acme'), description: 'Rockets', customData: { tier: 'gold' }, isMfaRequired: false },
        expected: (res) => [{ event: 'Organization.Created', data: res.body }],
        failures: [
          { why: 'missing name', path: '/organizations', body: { description: 'x' }, status: 400 },
          {
            why: 'operator-like customData key',
            path: '/organizations',
            body: { name: 'x', customData: { a: { $gt: 1 } } },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PATCH /organizations/:id',
    title: 'updating an organization publishes Organization.Data.Updated',
    async arrange(h) {
      const organization = await fixtures(h).organization();
      return {
        path: `/organizations/${organization.id}`,
        params: { id: organization.id },
        status: 200,
        body: { description: 'Updated', isMfaRequired: false },
        expected: (res) => [{ event: 'Organization.Data.Updated', data: res.body }],
        failures: [
          { why: 'unknown organization', path: `/organizations/${MISSING}`, body: { description: 'x' }, status: 404 },
          {
            why: 'isMfaRequired not a boolean',
            path: `/organizations/${organization.id}`,
            body: { isMfaRequired: 1 },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /organizations/:id',
    title: 'deleting an organization publishes Organization.Deleted with a snapshot',
    async arrange(h) {
      const { organization } = await populated(h);
      return {
        path: `/organizations/${organization.id}`,
        params: { id: organization.id },
        status: 204,
        expected: () => [{ event: 'Organization.Deleted', data: organization }],
        failures: [{ why: 'unknown organization', path: `/organizations/${MISSING}`, status: 404 }],
      };
    },
  },
  {
    route: 'POST /organizations/:id/users',
    title: 'adding users publishes the deduplicated new members only',
    async arrange(h) {
      const { organization, members } = await populated(h);
      const [a, b] = [await fixtures(h).user(), await fixtures(h).user()];
      return {
        path: `/organizations/${organization.id}/users`,
        params: { id: organization.id },
        status: 201,
        body: { userIds: [a.id, b.id, a.id, members[0].id] },
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, addedUserIds: [a.id, b.id] },
          },
        ],
        failures: [
          {
            why: 'unknown organization',
            path: `/organizations/${MISSING}/users`,
            body: { userIds: [a.id] },
            status: 422,
          },
          {
            why: 'unknown user',
            path: `/organizations/${organization.id}/users`,
            body: { userIds: [a.id, 'no-such-user'] },
            status: 422,
          },
          { why: 'no users', path: `/organizations/${organization.id}/users`, body: { userIds: [] }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /organizations/:id/users',
    title: 'adding users who already are members publishes nothing',
    async arrange(h) {
      const { organization, members } = await populated(h);
      return {
        path: `/organizations/${organization.id}/users`,
        params: { id: organization.id },
        status: 201,
        body: { userIds: members.map((member) => member.id) },
        expected: () => [],
        failures: [],
      };
    },
  },
  {
    route: 'PUT /organizations/:id/users',
    title: 'replacing users publishes both sides of the change',
    async arrange(h) {
      const { organization, members } = await populated(h);
      const newcomer = await fixtures(h).user();
      return {
        path: `/organizations/${organization.id}/users`,
        params: { id: organization.id },
        status: 204,
        body: { userIds: [members[1].id, newcomer.id, newcomer.id] },
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, addedUserIds: [newcomer.id], removedUserIds: [members[0].id] },
          },
        ],
        failures: [
          { why: 'unknown organization', path: `/organizations/${MISSING}/users`, body: { userIds: [] }, status: 422 },
          {
            why: 'unknown user',
            path: `/organizations/${organization.id}/users`,
            body: { userIds: ['no-such-user'] },
            status: 422,
          },
          {
            why: 'userIds not an array',
            path: `/organizations/${organization.id}/users`,
            body: { userIds: 'all' },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PUT /organizations/:id/users',
    title: 'replacing users with the same set publishes nothing',
    async arrange(h) {
      const { organization, members } = await populated(h);
      return {
        path: `/organizations/${organization.id}/users`,
        params: { id: organization.id },
        status: 204,
        body: { userIds: members.map((member) => member.id).reverse() },
        expected: () => [],
        failures: [],
      };
    },
  },
  {
    route: 'DELETE /organizations/:id/users/:userId',
    title: 'removing a member publishes removedUserIds',
    async arrange(h) {
      const { organization, members } = await populated(h);
      const outsider = await fixtures(h).user();
      return {
        path: `/organizations/${organization.id}/users/${members[0].id}`,
        params: { id: organization.id, userId: members[0].id },
        status: 204,
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, removedUserIds: [members[0].id] },
          },
        ],
        failures: [
          { why: 'not a member', path: `/organizations/${organization.id}/users/${outsider.id}`, status: 404 },
          { why: 'unknown organization', path: `/organizations/${MISSING}/users/${members[0].id}`, status: 404 },
        ],
      };
    },
  },
  {
    route: 'POST /organizations/:id/applications',
    title: 'adding applications publishes addedApplicationIds',
    async arrange(h) {
      const { organization, app: member } = await populated(h);
      const app = await fixtures(h).m2mApplication();
      const spa = await ok(h.api('POST', '/applications', { name: unique('spa'), type: 'SPA' }));
      const apps = `/organizations/${organization.id}/applications`;
      return {
        path: `/organizations/${organization.id}/applications`,
        params: { id: organization.id },
        status: 201,
        body: { applicationIds: [app.id, member.id, app.id] },
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, addedApplicationIds: [app.id] },
          },
        ],
        failures: [
          { why: 'not a machine-to-machine application', path: apps, body: { applicationIds: [spa.id] }, status: 422 },
          { why: 'unknown application', path: apps, body: { applicationIds: ['no-such-app'] }, status: 422 },
          {
            why: 'unknown organization',
            path: `/organizations/${MISSING}/applications`,
            body: { applicationIds: [app.id] },
            status: 422,
          },
        ],
      };
    },
  },
  {
    route: 'PUT /organizations/:id/applications',
    title: 'replacing applications publishes both sides of the change',
    async arrange(h) {
      const { organization, app: member } = await populated(h);
      const app = await fixtures(h).m2mApplication();
      const apps = `/organizations/${organization.id}/applications`;
      return {
        path: `/organizations/${organization.id}/applications`,
        params: { id: organization.id },
        status: 204,
        body: { applicationIds: [app.id] },
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: {
              organizationId: organization.id,
              addedApplicationIds: [app.id],
              removedApplicationIds: [member.id],
            },
          },
        ],
        failures: [
          { why: 'unknown application', path: apps, body: { applicationIds: ['no-such-app'] }, status: 422 },
          { why: 'unknown field', path: apps, body: { applicationIds: [], extra: true }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /organizations/:id/applications/:applicationId',
    title: 'removing an application publishes removedApplicationIds',
    async arrange(h) {
      const { organization, app } = await populated(h);
      return {
        path: `/organizations/${organization.id}/applications/${app.id}`,
        params: { id: organization.id, applicationId: app.id },
        status: 204,
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, removedApplicationIds: [app.id] },
          },
        ],
        failures: [
          {
            why: 'not a member application',
            path: `/organizations/${organization.id}/applications/no-such-app`,
            status: 404,
          },
        ],
      };
    },
  },
];
