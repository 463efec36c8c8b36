import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from '../errors.ts';

/**
 * The Experience API is bound to an OIDC interaction through its own cookie: oidc-provider's interaction
 * cookie is scoped to `/interaction/<uid>` and never reaches `/api/experience`. The sign-in page sets this
 * one when it is served; it names the interaction's uid, signed with the service's cookie keys, httpOnly and
 * SameSite=Lax (so other sites cannot make a browser send it along with their requests).
 */
export const EXPERIENCE_COOKIE = 'identity_experience';

export type Interaction = InstanceType<Provider['Interaction']>;

/** `/api/experience` under the mount prefix that BASE_URL carries. */
export function experienceCookiePath(baseUrl: string): string {
  return `${new URL(baseUrl).pathname.replace(/\/+$/, '')}/api/experience`;
}

/** Sets the cookie naming the interaction; it lasts as long as the interaction (`exp`, epoch seconds). */
export function setExperienceCookie(ctx: Context, baseUrl: string, interaction: { uid: string; exp: number }): void {
  ctx.cookies.set(EXPERIENCE_COOKIE, interaction.uid, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: experienceCookiePath(baseUrl),
    expires: new Date(interaction.exp * 1000),
    overwrite: true,
  });
}

/** The interaction uid the request's cookie names, when its signature holds. */
export function experienceUidOf(ctx: Context): string | undefined {
  const uid = ctx.cookies.get(EXPERIENCE_COOKIE, { signed: true });
  return uid && uid.length <= 128 ? uid : undefined;
}

/** Seconds the interaction has left; never below one, since stores read zero as "no expiry". */
export function remainingSeconds(interaction: { exp: number }): number {
  return Math.max(1, interaction.exp - Math.floor(Date.now() / 1000));
}

/** The live interaction a uid names, or 400 `session.not_found` (missing, unknown, expired or finished). */
export async function findInteraction(provider: Provider, uid: string | undefined): Promise<Interaction> {
  const interaction = uid ? await provider.Interaction.find(uid) : undefined;
  if (!interaction || interaction.exp <= Math.floor(Date.now() / 1000)) {
    throw errors.experience(
      'session.not_found',
      'no sign-in is in progress for this browser; start again from the application',
    );
  }
  return interaction;
}
