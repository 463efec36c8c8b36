import type { Context } from 'koa';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { issuedRecord, sendCodeBody, verifiedRecord, verifyCodeBody, verifyPasswordBody } from './schemas.ts';

const tag = 'Account verifications';

/**
 * Logto's `/api/verifications`: with their own access token, a user proves who they are (their password, or a
 * code sent to their own email or phone), or that they hold a new address, and gets a record id valid for ten
 * minutes. Impersonation tokens cannot verify (nor spend the user's lockout budget or messages).
 */
export function verificationRoutes(user: ApiRouterDeps, core: Pick<ServiceCore, 'account' | 'applications'>): void {
  const { account } = core;

  declare(user, {
    method: 'post',
    path: '/verifications/password',
    tag,
    scope: 'openid',
    status: 201,
    body: verifyPasswordBody,
    response: issuedRecord,
    summary:
      "Verify the user's password: a record proving their identity (422 session.invalid_credentials; counts toward lockout)",
    async handler({ koa, body }) {
      const { principal } = await account.authorize(koa, { access: 'edit' });
      return account.verifications.password(principal.userId, body.password);
    },
  });

  declare(user, {
    method: 'post',
    path: '/verifications/verification-code',
    tag,
    scope: 'openid',
    status: 201,
    body: sendCodeBody,
    response: issuedRecord,
    summary:
      'Send a code to an email address or phone number (429 request.message_rate_limited past the budget of the recipient, ' +
      'the user or the client address)',
    async handler({ koa, body }) {
      const { principal } = await account.authorize(koa, { access: 'edit' });
      const application = await core.applications.findById(principal.clientId);
      return account.verifications.sendCode(
        principal.userId,
        body.identifier,
        {
          ...requestContext(koa),
          applicationId: principal.clientId,
        },
        application?.name,
      );
    },
  });

  declare(user, {
    method: 'post',
    path: '/verifications/verification-code/verify',
    tag,
    scope: 'openid',
    body: verifyCodeBody,
    response: verifiedRecord,
    summary: 'Check the code of a verification-code record (wrong codes count toward lockout)',
    async handler({ koa, body }) {
      const { principal } = await account.authorize(koa, { access: 'edit' });
      return account.verifications.verifyCode(principal.userId, body.identifier, body.verificationId, body.code);
    },
  });
}

/** The request's address and agent, for the events a send may publish (Message.RateLimited). */
function requestContext(koa: Context) {
  const userAgent = koa.get('user-agent');
  return { ip: koa.ip, ...(userAgent && { userAgent }) };
}
