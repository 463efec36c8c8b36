import { z } from 'zod';
import { createAccountSocial } from '../../lib/connectors/account-social.ts';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { accountApi } from '../account/index.ts';

const absoluteUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value), 'must be an absolute URL');
const recordId = z.string().min(1).max(128);

/**
 * The Account API's social identities, as Logto has them: a social verification record (`/api/verifications/social`)
 * proves the user holds an identity; `POST /api/my-account/identities` links it and `DELETE …/:target` unlinks,
 * both behind the identity gate (`logto-verification-id`) and the account center's `social` field. The user's
 * identities are read on `GET /api/my-account` (scope `identities`).
 */
export function accountIdentityRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'account' | 'connectors' | 'kv'>,
): void {
  const user = accountApi(api, core);
  const { account } = core;
  const { connectors } = core;
  const social = createAccountSocial({
    kv: core.kv,
    connectors,
    upstreams: connectors.upstreams,
    identities: connectors.identities,
  });

  declare(user, {
    method: 'post',
    path: '/verifications/social',
    tag: 'Account verifications',
    scope: 'openid',
    status: 201,
    body: z
      .object({
        connectorId: idParam,
        redirectUri: absoluteUrl,
        state: z.string().min(8).max(512),
      })
      .strict(),
    response: z.object({ verificationRecordId: z.string(), authorizationUri: z.string(), expiresAt: z.string() }),
    summary: "Start proving a social identity: the provider's authorization URL, and the record its callback verifies",
    async handler({ koa, body }) {
      const { principal } = await account.authorize(koa, { field: 'social', access: 'edit' });
      return social.start(principal.userId, body.connectorId, body);
    },
  });

  declare(user, {
    method: 'post',
    path: '/verifications/social/verify',
    tag: 'Account verifications',
    scope: 'openid',
    body: z
      .object({
        verificationRecordId: recordId,
        connectorData: z
          .record(z.string().max(64), z.string().max(8192))
          .refine((data) => Object.keys(data).length <= 32, 'at most 32 parameters'),
      })
      .strict(),
    response: z.object({ verificationRecordId: z.string() }),
    summary: "Verify the provider's callback of a social verification record (state, code, ID token and nonce)",
    async handler({ koa, body }) {
      const { principal } = await account.authorize(koa, { field: 'social', access: 'edit' });
      return social.verify(principal.userId, body.verificationRecordId, body.connectorData);
    },
  });

  declare(user, {
    method: 'post',
    path: '/my-account/identities',
    tag: 'Account',
    scope: 'openid',
    status: 204,
    body: z.object({ newIdentifierVerificationRecordId: recordId }).strict(),
    summary:
      'Link the social identity a verified social record proves (behind the gate; 409 user.identity_already_in_use)',
    async handler({ koa, body }) {
      const { user: me } = await account.authorize(koa, { field: 'social', access: 'edit', identity: true });
      await social.link(me.id, body.newIdentifierVerificationRecordId);
    },
  });

  declare(user, {
    method: 'delete',
    path: '/my-account/identities/:target',
    tag: 'Account',
    scope: 'openid',
    status: 204,
    params: z.object({ target: idParam }),
    summary: "Unlink the user's social identity for a target (behind the gate; 404 user.identity_not_exist)",
    async handler({ koa, params }) {
      const { user: me } = await account.authorize(koa, { field: 'social', access: 'edit', identity: true });
      await social.unlink(me.id, params.target);
    },
  });
}
