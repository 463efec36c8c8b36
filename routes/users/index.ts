import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { userRelationRoutes } from './relations.ts';
import { userIdentityRoutes } from './identities.ts';
import {
  createUserBody,
  customDataBody,
  listUsersQuery,
  passwordBody,
  profileBody,
  suspensionBody,
  updateUserBody,
  user,
  getUserQuery,
  USER_SEARCH_FIELDS,
  userWithSsoIdentities,
  verifyPasswordBody,
} from './schemas.ts';

const tag = 'Users';
const byUser = z.object({ userId: idParam });
const jsonRecord = z.record(z.string(), z.unknown());

export function userRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'connectors' | 'organizations' | 'users'>,
): void {
  const library = core.users;

  declare(api, {
    method: 'get',
    path: '/users',
    tag,
    summary: "List users (Logto's search over id, username, email, phone and name)",
    query: listUsersQuery,
    search: USER_SEARCH_FIELDS,
    response: z.array(user),
    async handler({ query, search, page, paged }) {
      return paged(
        await library.list(page, {
          search,
          excludeRoleId: query.excludeRoleId,
          excludeOrganizationId: query.excludeOrganizationId,
        }),
      );
    },
  });

  declare(api, {
    method: 'post',
    path: '/users',
    tag,
    summary: 'Create a user',
    body: createUserBody,
    status: 201,
    response: user,
    handler({ body: { passwordDigest, passwordAlgorithm, ...input } }) {
      const imported =
        passwordDigest && passwordAlgorithm ? { digest: passwordDigest, algorithm: passwordAlgorithm } : undefined;
      return library.create({ ...input, importedPassword: imported });
    },
  });

  declare(api, {
    method: 'get',
    path: '/users/:userId',
    tag,
    summary: 'Get a user',
    params: byUser,
    query: getUserQuery,
    response: userWithSsoIdentities,
    async handler({ params, query }) {
      const found = await library.mustFind(params.userId);
      return query.includeSsoIdentities
        ? { ...found, ssoIdentities: await core.connectors.identities.ssoIdentitiesOf(found.id) }
        : found;
    },
  });

  declare(api, {
    method: 'patch',
    path: '/users/:userId',
    tag,
    refuseEmptyBody: true,
    summary: 'Update a user; customData and profile are replaced',
    params: byUser,
    body: updateUserBody,
    response: user,
    handler: ({ params, body }) => library.update(params.userId, body, 'always'),
  });

  declare(api, {
    method: 'get',
    path: '/users/:userId/custom-data',
    tag,
    summary: "Get a user's custom data",
    params: byUser,
    response: jsonRecord,
    handler: async ({ params }) => (await library.mustFind(params.userId)).customData,
  });

  declare(api, {
    method: 'patch',
    path: '/users/:userId/custom-data',
    tag,
    summary: 'Merge top-level keys into custom data; returns it',
    params: byUser,
    body: customDataBody,
    response: jsonRecord,
    handler: async ({ params, body }) =>
      (await library.mergeCustomData(params.userId, body.customData, 'always')).customData,
  });

  declare(api, {
    method: 'patch',
    path: '/users/:userId/profile',
    tag,
    summary: 'Merge top-level keys into the profile; returns it',
    params: byUser,
    body: profileBody,
    response: jsonRecord,
    handler: async ({ params, body }) => (await library.mergeProfile(params.userId, body.profile, 'always')).profile,
  });

  declare(api, {
    method: 'patch',
    path: '/users/:userId/password',
    tag,
    summary: 'Set the password',
    params: byUser,
    body: passwordBody,
    response: user,
    handler: ({ params, body }) => library.setPassword(params.userId, body.password),
  });

  declare(api, {
    method: 'post',
    path: '/users/:userId/password/verify',
    tag,
    summary: 'Check a password: 204 when it matches, 422 session.invalid_credentials otherwise',
    params: byUser,
    body: verifyPasswordBody,
    status: 204,
    handler: ({ params, body }) => library.verifyPassword(params.userId, body.password),
  });

  declare(api, {
    method: 'get',
    path: '/users/:userId/has-password',
    tag,
    summary: 'Whether the user has a password',
    params: byUser,
    response: z.object({ hasPassword: z.boolean() }),
    handler: async ({ params }) => ({ hasPassword: (await library.mustFind(params.userId)).hasPassword }),
  });

  declare(api, {
    method: 'patch',
    path: '/users/:userId/is-suspended',
    tag,
    summary: 'Suspend or reinstate; suspension ends sessions and grants',
    params: byUser,
    body: suspensionBody,
    response: user,
    handler: ({ params, body }) => library.setSuspended(params.userId, body.isSuspended),
  });

  declare(api, {
    method: 'delete',
    path: '/users/:userId',
    tag,
    summary: 'Delete a user',
    params: byUser,
    status: 204,
    async handler({ params }) {
      await library.delete(params.userId);
    },
  });

  userRelationRoutes(api, core);
  userIdentityRoutes(api, core);
}
