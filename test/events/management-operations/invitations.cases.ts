import { fixtures, ok, unique, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const DAY = 24 * 3600 * 1000;

async function invitation(h: Harness, invitee: string, organizationRoleIds: string[] = []) {
  const organization = await fixtures(h).organization();
  const created = await ok(
    h.api('POST', '/organization-invitations', {
      invitee,
      organizationId: organization.id,
      expiresAt: Date.now() + DAY,
      organizationRoleIds,
    }),
  );
  return { organization, invitation: created };
}

export const invitationEventCases: EventCase[] = [
  {
    route: 'PUT /organization-invitations/:id/status',
    title: 'accepting an invitation publishes the new member',
    async arrange(h) {
      const email = `${unique('invitee')}@example.com`;
      const user = await fixtures(h).user({ primaryEmail: email });
      const stranger = await fixtures(h).user({ primaryEmail: `${unique('stranger')}@example.com` });
      const { organization, invitation: created } = await invitation(h, email.toUpperCase());
      const path = `/organization-invitations/${created.id}/status`;
      return {
        path,
        params: { id: created.id },
        status: 200,
        body: { status: 'Accepted', acceptedUserId: user.id },
        expected: () => [
          {
            event: 'Organization.Membership.Updated',
            data: organization,
            fields: { organizationId: organization.id, addedUserIds: [user.id] },
          },
        ],
        failures: [
          {
            why: 'unknown invitation',
            path: '/organization-invitations/no-such-invitation/status',
            body: { status: 'Revoked' },
            status: 404,
          },
          { why: 'accepting without a user', path, body: { status: 'Accepted' }, status: 400 },
          { why: 'unknown status', path, body: { status: 'Expired' }, status: 400 },
          { why: 'unknown user', path, body: { status: 'Accepted', acceptedUserId: 'no-such-user' }, status: 404 },
          { why: "another user's email", path, body: { status: 'Accepted', acceptedUserId: stranger.id }, status: 422 },
        ],
      };
    },
  },
  {
    route: 'PUT /organization-invitations/:id/status',
    title: 'accepting by someone who already is a member publishes nothing',
    async arrange(h) {
      const email = `${unique('member')}@example.com`;
      const { organization, invitation: created } = await invitation(h, email);
      const member = await fixtures(h).member(organization.id, { primaryEmail: email });
      return {
        path: `/organization-invitations/${created.id}/status`,
        params: { id: created.id },
        status: 200,
        body: { status: 'Accepted', acceptedUserId: member.id },
        expected: () => [],
        failures: [],
      };
    },
  },
  {
    route: 'PUT /organization-invitations/:id/status',
    title: 'revoking an invitation publishes nothing, and a revoked one cannot be accepted',
    async arrange(h) {
      const email = `${unique('revoked')}@example.com`;
      const user = await fixtures(h).user({ primaryEmail: email });
      const { invitation: created } = await invitation(h, email);
      const path = `/organization-invitations/${created.id}/status`;
      return {
        path,
        params: { id: created.id },
        status: 200,
        body: { status: 'Revoked' },
        async expected() {
          const again = await h.api('PUT', path, { status: 'Accepted', acceptedUserId: user.id });
          if (again.status !== 422) throw new Error(`a revoked invitation was accepted: ${again.status}`);
          return [];
        },
        failures: [],
      };
    },
  },
];
