import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the sign-in forms: an HMAC of the interaction's uid under the service's cookie keys, so a
 * token is good for one interaction only and no other site can compute one. The first key signs; every
 * key verifies, as for cookies.
 */
export function createFormTokens(keys: readonly string[]) {
  const sign = (key: string, uid: string) =>
    createHmac('sha256', key).update(`interaction-form:${uid}`).digest('base64url');
  return {
    issue: (uid: string): string => sign(keys[0]!, uid),
    verify(uid: string, presented: unknown): boolean {
      if (typeof presented !== 'string') return false;
      const given = Buffer.from(presented);
      let valid = false;
      for (const key of keys) {
        const expected = Buffer.from(sign(key, uid));
        if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
      }
      return valid;
    },
  };
}
