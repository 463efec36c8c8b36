import { fixtures, ok, unique } from '../../support/management/harness.ts';
import { setupToken } from '../../support/setup-link.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-user';

export const userEventCases: EventCase[] = [
  {
    route: 'POST /users',
    title: 'creating a user publishes User.Created with the user as returned',
    async arrange(h) {
      const taken = await fixtures(h).user();
      const username = unique('alice');
      return {
        path: '/users',
        params: {},
        status: 201,
        body: {
          username,
          primaryEmail: `${username}@example.com`,
          name: 'Alice',
          password: 'correct horse battery',
          customData: { plan: 'free' },
        },
        expected: (res) => [{ event: 'User.Created', data: res.body }],
        failures: [
          { why: 'username of the wrong type', path: '/users', body: { username: 42 }, status: 400 },
          {
            why: 'password below the policy',
            path: '/users',
            body: { username: unique('bob'), password: 'short' },
            status: 422,
          },
          { why: 'malformed JSON', path: '/users', raw: '{"username":', status: 400 },
          { why: 'username taken', path: '/users', body: { username: taken.username }, status: 409 },
        ],
      };
    },
  },
  {
    route: 'PATCH /users/:userId',
    title: 'updating a user publishes User.Data.Updated with the updated user',
    async arrange(h) {
      const [user, other] = [await fixtures(h).user(), await fixtures(h).user()];
      return {
        path: `/users/${user.id}`,
        params: { userId: user.id },
        status: 200,
        body: { name: 'Renamed', primaryEmail: `${user.username}@example.org` },
        expected: (res) => [{ event: 'User.Data.Updated', data: res.body }],
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}`, body: { name: 'x' }, status: 404 },
          { why: 'unknown field', path: `/users/${user.id}`, body: { nickname: 'x' }, status: 400 },
          { why: 'username taken', path: `/users/${user.id}`, body: { username: other.username }, status: 409 },
        ],
      };
    },
  },
  {
    route: 'PATCH /users/:userId',
    title: 'an update that leaves every field as it was still publishes User.Data.Updated, as Logto does',
    async arrange(h) {
      const user = await fixtures(h).user({ name: 'Same' });
      return {
        path: `/users/${user.id}`,
        params: { userId: user.id },
        status: 200,
        body: { name: 'Same', username: user.username },
        expected: (res) => [{ event: 'User.Data.Updated', data: res.body }],
        failures: [],
      };
    },
  },
  {
    route: 'PATCH /users/:userId/custom-data',
    title: 'merging custom data publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const user = await fixtures(h).user({ customData: { plan: 'free', seats: 1 } });
      return {
        path: `/users/${user.id}/custom-data`,
        params: { userId: user.id },
        status: 200,
        body: { customData: { plan: 'pro' } },
        async expected(res) {
          const current = await ok(h.api('GET', `/users/${user.id}`));
          return [{ event: 'User.Data.Updated', data: { ...current, customData: res.body } }];
        },
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}/custom-data`, body: { customData: {} }, status: 404 },
          {
            why: 'customData is an array',
            path: `/users/${user.id}/custom-data`,
            body: { customData: [1] },
            status: 400,
          },
          {
            why: 'operator-like key',
            path: `/users/${user.id}/custom-data`,
            body: { customData: { $set: 1 } },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PATCH /users/:userId/profile',
    title: 'merging the profile publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const user = await fixtures(h).user({ profile: { givenName: 'Ada' } });
      return {
        path: `/users/${user.id}/profile`,
        params: { userId: user.id },
        status: 200,
        body: { profile: { familyName: 'Lovelace' } },
        async expected(res) {
          const current = await ok(h.api('GET', `/users/${user.id}`));
          return [{ event: 'User.Data.Updated', data: { ...current, profile: res.body } }];
        },
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}/profile`, body: { profile: {} }, status: 404 },
          {
            why: 'unknown profile field',
            path: `/users/${user.id}/profile`,
            body: { profile: { shoeSize: '9' } },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PATCH /users/:userId/password',
    title: 'setting a password publishes User.Data.Updated without any secret',
    async arrange(h) {
      const user = await fixtures(h).user();
      return {
        path: `/users/${user.id}/password`,
        params: { userId: user.id },
        status: 200,
        body: { password: 'a new long password' },
        expected: (res) => [{ event: 'User.Data.Updated', data: { ...res.body, hasPassword: true } }],
        failures: [
          {
            why: 'unknown user',
            path: `/users/${MISSING}/password`,
            body: { password: 'long enough password' },
            status: 404,
          },
          { why: 'too short', path: `/users/${user.id}/password`, body: { password: 'short' }, status: 422 },
        ],
      };
    },
  },
  {
    route: 'PATCH /users/:userId/is-suspended',
    title: 'suspending publishes User.SuspensionStatus.Updated',
    async arrange(h) {
      const user = await fixtures(h).user();
      return {
        path: `/users/${user.id}/is-suspended`,
        params: { userId: user.id },
        status: 200,
        body: { isSuspended: true },
        expected: (res) => [{ event: 'User.SuspensionStatus.Updated', data: { ...res.body, isSuspended: true } }],
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}/is-suspended`, body: { isSuspended: true }, status: 404 },
          { why: 'not a boolean', path: `/users/${user.id}/is-suspended`, body: { isSuspended: 'yes' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /users/:userId',
    title: 'deleting a user publishes User.Deleted with a snapshot',
    async arrange(h) {
      const user = await fixtures(h).user({ name: 'Gone Soon' });
      const snapshot = await ok(h.api('GET', `/users/${user.id}`));
      return {
        path: `/users/${user.id}`,
        params: { userId: user.id },
        status: 204,
        expected: () => [{ event: 'User.Deleted', data: snapshot }],
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}`, status: 404 },
          { why: 'id too long', path: `/users/${'x'.repeat(200)}`, status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /console/setup',
    title: 'completing the console setup publishes User.Created with the first admin',
    async arrange(h) {
      const token = setupToken(h.printed, h.running.baseUrl);
      const username = unique('first_admin');
      return {
        path: '/console/setup',
        params: {},
        status: 201,
        body: { token, username, password: 'correct horse battery staple' },
        expected: (res) => [{ event: 'User.Created', data: res.body }],
        failures: [
          {
            why: 'unknown link',
            path: '/console/setup',
            body: { token: `${token}x`, username, password: 'correct horse battery staple' },
            status: 403,
          },
          {
            why: 'weak password',
            path: '/console/setup',
            body: { token, username, password: 'password' },
            status: 422,
          },
        ],
      };
    },
  },
];
