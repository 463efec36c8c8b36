import { fixtures, ok } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-user';

export const identityEventCases: EventCase[] = [
  {
    route: 'PUT /users/:userId/identities/:target',
    title: 'setting a social identity publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const user = await fixtures(h).user();
      const holder = await fixtures(h).user();
      await ok(h.api('PUT', `/users/${holder.id}/identities/github`, { userId: 'taken-id' }));
      return {
        path: `/users/${user.id}/identities/github`,
        params: { userId: user.id, target: 'github' },
        status: 201,
        body: { userId: 'gh-1', details: { name: 'Octo' } },
        async expected() {
          return [{ event: 'User.Data.Updated', data: await ok(h.api('GET', `/users/${user.id}`)) }];
        },
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}/identities/github`, body: { userId: 'gh-2' }, status: 404 },
          {
            why: 'another user holds the identity',
            path: `/users/${user.id}/identities/github`,
            body: { userId: 'taken-id' },
            status: 409,
          },
          { why: 'no identity id', path: `/users/${user.id}/identities/github`, body: { details: {} }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /users/:userId/identities/:target',
    title: 'removing a social identity publishes User.Data.Updated with the user after it',
    async arrange(h) {
      const user = await fixtures(h).user();
      await ok(h.api('PUT', `/users/${user.id}/identities/github`, { userId: 'gh-remove' }));
      return {
        path: `/users/${user.id}/identities/github`,
        params: { userId: user.id, target: 'github' },
        status: 200,
        expected: (res) => [{ event: 'User.Data.Updated', data: res.body }],
        failures: [
          { why: 'no such identity', path: `/users/${user.id}/identities/gitlab`, status: 404 },
          { why: 'unknown user', path: `/users/${MISSING}/identities/github`, status: 404 },
        ],
      };
    },
  },
];
