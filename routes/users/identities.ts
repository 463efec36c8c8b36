import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { jsonObject } from '../../lib/http/schemas.ts';
import { errors } from '../../lib/errors.ts';
import { user } from './schemas.ts';

const tag = 'Users';
const byTarget = z.object({ userId: idParam, target: idParam });

const ssoIdentity = z.object({
  id: z.string(),
  userId: z.string(),
  issuer: z.string(),
  identityId: z.string(),
  detail: z.record(z.string(), z.unknown()),
  ssoConnectorId: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

/** A user's social identities (Logto's `/users/:userId/identities/:target`) and enterprise SSO identities. */
export function userIdentityRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'connectors'>): void {
  const identities = core.connectors.identities;

  declare(api, {
    method: 'put',
    path: '/users/:userId/identities/:target',
    tag,
    summary:
      "Set the user's social identity for a target (201 when new); 409 user.identity_already_in_use when another user has it",
    params: byTarget,
    body: z.object({ userId: z.string().min(1).max(256), details: jsonObject.optional() }).strict(),
    status: 200,
    alternativeStatus: 201,
    alternativeWithBody: true,
    response: z.record(z.string(), z.unknown()),
    async handler({ params, body, answer }) {
      const { user: updated, created } = await identities.linkSocial(params.userId, params.target, body);
      if (created) answer(201);
      return updated.identities;
    },
  });

  declare(api, {
    method: 'delete',
    path: '/users/:userId/identities/:target',
    tag,
    summary: "Remove the user's social identity for a target; 404 user.identity_not_exist when there is none",
    params: byTarget,
    response: user,
    handler: ({ params }) => identities.unlinkSocial(params.userId, params.target),
  });

  declare(api, {
    method: 'get',
    path: '/users/:userId/sso-identities/:ssoConnectorId',
    tag,
    summary: "The user's enterprise SSO identity through a connector; 404 user.enterprise_sso_identity_not_exists",
    params: z.object({ userId: idParam, ssoConnectorId: idParam }),
    response: z.object({ ssoIdentity }),
    async handler({ params }) {
      const found = (await identities.ssoIdentitiesOf(params.userId)).find(
        (item) => item.ssoConnectorId === params.ssoConnectorId,
      );
      if (!found)
        throw errors.experience(
          'user.enterprise_sso_identity_not_exists',
          'this user has no identity through this SSO connector',
        );
      return { ssoIdentity: found };
    },
  });
}
