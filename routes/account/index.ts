import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { accountCenterPatch, accountCenterSchema } from '../../lib/account/center.ts';
import { verificationRoutes } from './verifications.ts';
import { accountMfaRoutes } from './mfa-verifications.ts';
import { accountImpersonationRoutes } from './impersonations.ts';
import { accountSessionRoutes } from './sessions.ts';
import {
  accountProfile,
  basicsBody,
  passwordBody,
  primaryEmailBody,
  primaryPhoneBody,
  profileBody,
  profileResponse,
} from './schemas.ts';

const tag = 'Account';

/**
 * The router deps of Account API routes: `declare(accountApi(api, core), { scope: 'openid', ... })` authenticates
 * the caller with their own access token and requires that OIDC scope on it (see `lib/account/auth.ts`). In the
 * handler, `core.account.authorize(koa, { field, access, identity })` then applies impersonation, the account
 * center and, with `identity: true`, the gate (`logto-verification-id`). Routes of other capabilities (MFA
 * factors, linked identities) are declared this way and registered from `accountRoutes` below.
 */
export function accountApi(api: ApiRouterDeps, core: Pick<ServiceCore, 'account'>): ApiRouterDeps {
  return { ...api, requireScope: core.account.auth.requireScope, security: 'user' };
}

export function accountRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'account' | 'applications' | 'impersonation' | 'mfa' | 'signInExperience'>,
): void {
  const { account } = core;
  const user = accountApi(api, core);

  declare(api, {
    method: 'get',
    path: '/account-center',
    tag: 'Account center',
    response: accountCenterSchema,
    summary: 'The account center: whether the Account API is on, and which fields users may see or change',
    handler: () => account.center.get(),
  });

  declare(api, {
    method: 'patch',
    path: '/account-center',
    tag: 'Account center',
    body: accountCenterPatch,
    response: accountCenterSchema,
    summary: 'Update the account center; `fields`, when given, replaces every field (one left out is Off)',
    handler: ({ body }) => account.center.update(body),
  });

  declare(user, {
    method: 'get',
    path: '/my-account',
    tag,
    scope: 'openid',
    response: accountProfile,
    summary: "The signed-in user's account: fields as the token's scopes and the account center allow",
    async handler({ koa }) {
      return account.profileOf(await account.authorize(koa, { access: 'read' }));
    },
  });

  declare(user, {
    method: 'patch',
    path: '/my-account',
    tag,
    scope: 'openid',
    body: basicsBody,
    response: accountProfile,
    refuseEmptyBody: true,
    summary: 'Change name, avatar, username (behind the identity gate) or customData (replaced; needs custom_data)',
    async handler({ koa, body }) {
      const request = await account.authorize(koa, { access: 'edit' });
      return account.profileOf(request, await account.updateBasics(koa, request, body));
    },
  });

  declare(user, {
    method: 'patch',
    path: '/my-account/profile',
    tag,
    scope: 'profile',
    body: profileBody,
    response: profileResponse,
    refuseEmptyBody: true,
    summary: 'Merge top-level keys into the profile; returns it',
    async handler({ koa, body }) {
      const request = await account.authorize(koa, { field: 'profile', access: 'edit' });
      return (await account.updateProfile(request, body)).profile;
    },
  });

  declare(user, {
    method: 'post',
    path: '/my-account/password',
    tag,
    scope: 'openid',
    body: passwordBody,
    status: 204,
    summary:
      'Set a new password (behind the identity gate when the user can prove who they are); the password policy applies',
    async handler({ koa, body }) {
      const request = await account.authorize(koa, { field: 'password', access: 'edit' });
      await account.setPassword(koa, request, body.password);
    },
  });

  for (const channel of ['email', 'phone'] as const) {
    const path = channel === 'email' ? '/my-account/primary-email' : '/my-account/primary-phone';
    const noun = channel === 'email' ? 'primary email' : 'primary phone';
    declare(user, {
      method: 'post',
      path,
      tag,
      scope: channel,
      status: 204,
      body: channel === 'email' ? primaryEmailBody : primaryPhoneBody,
      summary: `Set the ${noun} (identity gate), proven by a verified code record of the new ${channel === 'email' ? 'address' : 'number'}`,
      async handler({ koa, body }) {
        const request = await account.authorize(koa, { field: channel, access: 'edit', identity: true });
        const value = 'email' in body ? body.email : body.phone;
        await account.setPrimary(request, channel, value, body.newIdentifierVerificationRecordId);
      },
    });
    declare(user, {
      method: 'delete',
      path,
      tag,
      scope: channel,
      status: 204,
      summary: `Remove the ${noun} (identity gate); refused when sign-up requires it or it is the last identifier`,
      async handler({ koa }) {
        const request = await account.authorize(koa, { field: channel, access: 'edit', identity: true });
        await account.removePrimary(request, channel);
      },
    });
  }

  verificationRoutes(user, core);
  accountMfaRoutes(user, core);
  accountImpersonationRoutes(user, core);
  accountSessionRoutes(user, core);
}
