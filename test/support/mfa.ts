import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import type { ExperienceClient, ExperienceHarness } from './experience.ts';
import { json, uniqueName } from './experience.ts';

export const PASSWORD = 'Second-Factor-Pass-42';

/** The code an authenticator app shows for `secret`, `steps` 30-second steps from now (as the app computes it). */
export function totpCode(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/** A user with a password, through the management API. */
export async function passwordUser(
  h: ExperienceHarness,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; username: string }> {
  const res = await h.running.request('/api/users', {
    method: 'POST',
    json: { username: uniqueName('mfa'), password: PASSWORD, ...fields },
  });
  expect(res.status).to.equal(201);
  return json(res);
}

/** Opens a sign-in, verifies the password and identifies the account: what is left is the second factor. */
export async function identifiedByPassword(h: ExperienceHarness, username: string): Promise<ExperienceClient> {
  const client = h.client();
  await client.open(h.app);
  await client.ok('PUT', '', { interactionEvent: 'SignIn' });
  const { verificationId } = await client.ok('POST', '/verification/password', {
    identifier: { type: 'username', value: username },
    password: PASSWORD,
  });
  await client.ok('POST', '/identification', { verificationId });
  return client;
}

/** Sets the MFA settings of the sign-in experience. */
export async function mfaPolicy(h: ExperienceHarness, mfa: Record<string, unknown>): Promise<void> {
  await h.signInExperience({ mfa });
}

export const DEFAULT_MFA = { factors: [], policy: 'UserControlled', organizationRequiredMfaPolicy: 'NoPrompt' };

/** An authenticator app for the user set up by the management API; answers its secret. */
export async function enrolTotp(h: ExperienceHarness, userId: string): Promise<string> {
  const res = await h.running.request(`/api/users/${userId}/mfa-verifications`, {
    method: 'POST',
    json: { type: 'Totp' },
  });
  expect(res.status, await res.clone().text()).to.equal(201);
  return (await json(res)).secret;
}
