import type { Context } from 'koa';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { experienceUidOf, type ExperienceRequest } from '../../lib/experience/index.ts';
import {
  eventBody,
  experienceState,
  identificationBody,
  passwordBody,
  passwordVerificationBody,
  profileBody,
  sendCodeBody,
  submitResponse,
  verificationResponse,
  verifyCodeBody,
  totpSecretResponse,
  totpVerifyBody,
  backupCodesResponse,
  backupCodeVerifyBody,
  bindMfaBody,
} from './schemas.ts';
import { experienceConnectorRoutes } from './connectors.ts';
import { experienceWebAuthnRoutes } from './web-authn.ts';
import { errors } from '../../lib/errors.ts';
import { isImpersonationToken } from '../../lib/impersonation/bearer.ts';

const tag = 'Experience';

/** The interaction the browser's experience cookie names, and who is asking (for event payloads). */
export function requestOf(ctx: Context): ExperienceRequest {
  return { uid: experienceUidOf(ctx) ?? '', ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined };
}

/**
 * Logto's Experience API: the JSON face of the experience library, for sign-in UIs of one's own. No bearer
 * token: each call acts on the OIDC interaction its cookie names (400 `session.not_found` without one).
 */
export function experienceRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'experience' | 'provider'>): void {
  const { experience } = core;

  // No one signs in, registers or resets a password while impersonating: a request bearing an impersonation token
  // is refused before any experience step runs.
  api.router.use('/experience', async (ctx, next) => {
    const bearer = /^Bearer ([\w.~+/-]+=*)$/i.exec(ctx.get('authorization'))?.[1];
    if (bearer && (await isImpersonationToken(core.provider, bearer))) {
      throw errors.refused(
        'auth.impersonation_not_allowed',
        'the Experience API cannot be entered with an impersonation token',
      );
    }
    await next();
  });

  declare(api, {
    method: 'put',
    path: '/experience',
    tag,
    scope: null,
    status: 204,
    body: eventBody,
    summary: 'Start an experience (SignIn, Register or ForgotPassword), replacing any earlier one of this sign-in',
    handler: ({ koa, body }) => experience.start(requestOf(koa), body.interactionEvent),
  });

  declare(api, {
    method: 'put',
    path: '/experience/interaction-event',
    tag,
    scope: null,
    status: 204,
    body: eventBody,
    summary: 'Switch between SignIn and Register (the profile being built is dropped)',
    handler: ({ koa, body }) => experience.setEvent(requestOf(koa), body.interactionEvent),
  });

  declare(api, {
    method: 'get',
    path: '/experience/interaction',
    tag,
    scope: null,
    response: experienceState,
    summary: 'The experience so far: event, identified user, profile and verifications (no secrets)',
    handler: ({ koa }) => experience.state(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/password',
    tag,
    scope: null,
    body: passwordVerificationBody,
    response: verificationResponse,
    summary: 'Verify a password (counted by the lockout policy)',
    handler: ({ koa, body }) => experience.verifyPassword(requestOf(koa), body.identifier, body.password),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/verification-code',
    tag,
    scope: null,
    body: sendCodeBody,
    response: verificationResponse,
    summary:
      'Send a verification code to an email address or phone number, after the answer (429 request.message_rate_limited past the ' +
      'budget of the recipient, the sign-in or the client address)',
    handler: ({ koa, body }) => experience.sendCode(requestOf(koa), body.identifier, body.interactionEvent),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/verification-code/verify',
    tag,
    scope: null,
    body: verifyCodeBody,
    response: verificationResponse,
    summary: 'Verify a code (counted by the lockout policy)',
    handler: ({ koa, body }) => experience.verifyCode(requestOf(koa), body.identifier, body.verificationId, body.code),
  });

  declare(api, {
    method: 'post',
    path: '/experience/identification',
    tag,
    scope: null,
    status: 204,
    alternativeStatus: 201,
    body: identificationBody,
    summary: 'Identify the user: 204 for sign-in and forgot password, 201 when a registration created the account',
    async handler({ koa, body, answer }) {
      const { created } = await experience.identify(requestOf(koa), body.verificationId, {
        linkSocialIdentity: body.linkSocialIdentity,
      });
      if (created) answer(201);
    },
  });

  declare(api, {
    method: 'post',
    path: '/experience/profile',
    tag,
    scope: null,
    status: 204,
    body: profileBody,
    summary: 'Add to the profile: username or password by value, email or phone by a verified code',
    handler: ({ koa, body }) => experience.addProfile(requestOf(koa), body),
  });

  declare(api, {
    method: 'put',
    path: '/experience/profile/password',
    tag,
    scope: null,
    status: 204,
    body: passwordBody,
    summary: 'Set the new password of a forgot-password experience',
    handler: ({ koa, body }) => experience.resetPassword(requestOf(koa), body.password),
  });

  experienceConnectorRoutes(api, core);

  declare(api, {
    method: 'post',
    path: '/experience/verification/totp/secret',
    tag,
    scope: null,
    response: totpSecretResponse,
    summary: 'Set up an authenticator app: a new TOTP secret for the identified account, with its QR code (shown once)',
    handler: ({ koa }) => experience.newTotpSecret(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/totp/verify',
    tag,
    scope: null,
    body: totpVerifyBody,
    response: verificationResponse,
    summary:
      "Check a TOTP code: of the new secret (verificationId) or of the account's app; each time step once (counted by the lockout policy)",
    handler: ({ koa, body }) => experience.verifyTotp(requestOf(koa), body.code, body.verificationId),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/backup-code/generate',
    tag,
    scope: null,
    response: backupCodesResponse,
    summary: 'Ten new backup codes for the identified account (shown once; stored when bound and submitted)',
    handler: ({ koa }) => experience.newBackupCodes(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/backup-code/verify',
    tag,
    scope: null,
    body: backupCodeVerifyBody,
    response: verificationResponse,
    summary: "Spend one of the account's backup codes (each works once; counted by the lockout policy)",
    handler: ({ koa, body }) => experience.verifyBackupCode(requestOf(koa), body.code),
  });

  experienceWebAuthnRoutes(api, core);

  declare(api, {
    method: 'post',
    path: '/experience/profile/mfa',
    tag,
    scope: null,
    status: 204,
    body: bindMfaBody,
    summary: 'Bind the new factor a verification set up; it is stored at submit',
    handler: ({ koa, body }) => experience.bindMfa(requestOf(koa), body.type, body.verificationId),
  });

  declare(api, {
    method: 'post',
    path: '/experience/profile/mfa/mfa-skipped',
    tag,
    scope: null,
    status: 204,
    summary: 'Decline to add a second factor now (only where the MFA policy lets the user choose)',
    handler: ({ koa }) => experience.skipMfa(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/submit',
    tag,
    scope: null,
    response: submitResponse,
    summary:
      'Commit the experience and answer where the browser goes next (back into the OIDC flow); 403 ' +
      'session.mfa.require_mfa_verification while a factor of the account is unproved, 422 user.missing_mfa or ' +
      'session.mfa.backup_code_required while the MFA policy asks for enrolment',
    handler: ({ koa }) => experience.submit(requestOf(koa)),
  });
}
