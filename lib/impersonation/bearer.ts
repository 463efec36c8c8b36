import type Provider from 'oidc-provider';
import { decodeJwt } from 'jose';
import { TOKEN_EXCHANGE_GTY } from './grant.ts';
import { IMPERSONATION_CLAIM } from './record.ts';

/**
 * Whether a bearer token is an impersonation token: a JWT naming an impersonation, or a stored opaque token issued by
 * token exchange. Used to refuse such tokens where they must never be honoured; a forged claim only refuses its bearer.
 */
export async function isImpersonationToken(provider: Provider, value: string): Promise<boolean> {
  if (value.split('.').length === 3) {
    try {
      return typeof decodeJwt(value)[IMPERSONATION_CLAIM] === 'string';
    } catch {
      return false;
    }
  }
  return (await provider.AccessToken.find(value))?.gty === TOKEN_EXCHANGE_GTY;
}
