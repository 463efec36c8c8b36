import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { authenticationPayload, registrationPayload } from '../../lib/mfa/webauthn-payloads.ts';
import { requestOf } from './index.ts';
import { verificationResponse } from './schemas.ts';

const tag = 'Experience';
const verificationId = z.string().min(1).max(128);

/** The options `navigator.credentials.create()` / `.get()` take, as SimpleWebAuthn's JSON (base64url binaries). */
const creationOptions = z
  .record(z.string(), z.unknown())
  .describe(
    'PublicKeyCredentialCreationOptionsJSON: rp (id = the host of BASE_URL), user, challenge, pubKeyCredParams, excludeCredentials…',
  );
const requestOptions = z
  .record(z.string(), z.unknown())
  .describe("PublicKeyCredentialRequestOptionsJSON: rpId, challenge, allowCredentials (the account's passkeys)…");

/**
 * Passkeys at the second-factor step (Logto's paths and shapes). Each challenge is answered once, within five
 * minutes: a replayed or late answer is 400 `session.mfa.pending_info_not_found`, an answer that does not verify
 * (origin, RP ID, signature, credential, counter) 400 `session.mfa.webauthn_verification_failed`.
 */
export function experienceWebAuthnRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'experience'>): void {
  const { experience } = core;

  declare(api, {
    method: 'post',
    path: '/experience/verification/web-authn/registration',
    tag,
    scope: null,
    response: z.object({ verificationId: z.string(), registrationOptions: creationOptions }),
    summary:
      "Set up a passkey: registration options for the identified account (WebAuthn must be among the sign-in experience's factors)",
    handler: ({ koa }) => experience.newWebAuthnRegistration(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/web-authn/registration/verify',
    tag,
    scope: null,
    body: z.object({ verificationId, payload: registrationPayload }).strict(),
    response: verificationResponse,
    summary:
      'Check the new passkey the browser created; bind it with POST /experience/profile/mfa {type: WebAuthn} to store it at submit',
    handler: ({ koa, body }) =>
      experience.verifyWebAuthnRegistration(requestOf(koa), body.verificationId, body.payload),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/web-authn/authentication',
    tag,
    scope: null,
    response: z.object({ verificationId: z.string(), authenticationOptions: requestOptions }),
    summary:
      "A challenge for one of the identified account's passkeys (400 session.mfa.webauthn_verification_not_found without one)",
    handler: ({ koa }) => experience.newWebAuthnAuthentication(requestOf(koa)),
  });

  declare(api, {
    method: 'post',
    path: '/experience/verification/web-authn/authentication/verify',
    tag,
    scope: null,
    body: z.object({ verificationId, payload: authenticationPayload }).strict(),
    response: verificationResponse,
    summary: "Check the passkey's assertion (each challenge answered once; failures count toward the lockout)",
    handler: ({ koa, body }) =>
      experience.verifyWebAuthnAuthentication(requestOf(koa), body.verificationId, body.payload),
  });
}
