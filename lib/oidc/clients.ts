import type { AdapterPayload } from 'oidc-provider';
import { isConfidential, type Application } from '../repositories/applications.ts';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Third-party applications can never impersonate, whatever their metadata says. */
export function tokenExchangeAllowed(app: Pick<Application, 'isThirdParty' | 'customClientMetadata'>): boolean {
  return !app.isThirdParty && app.customClientMetadata.allowTokenExchange === true;
}

/**
 * The OIDC client an application stands for. Confidential apps authenticate with HTTP Basic or POST; the
 * stored `client_secret` is the secret's digest, compared by the provider's patched `compareClientSecret`.
 */
export function toClientMetadata(app: Application & { secretDigest: string | null }): AdapterPayload {
  const confidential = isConfidential(app.type);
  // Without a redirect URI an interactive application cannot run the authorization code flow yet.
  const interactive = app.type !== 'MachineToMachine' && app.oidcClientMetadata.redirectUris.length > 0;
  const grantTypes = app.type === 'MachineToMachine' ? ['client_credentials'] : [];
  if (interactive) grantTypes.push('authorization_code', 'refresh_token');
  // Every client may present the token-exchange grant, so that a disabled application gets the precise
  // `unauthorized_client` error of the grant instead of a generic one; the grant checks the flag.
  grantTypes.push(TOKEN_EXCHANGE_GRANT);
  const metadata: AdapterPayload = {
    client_id: app.id,
    client_name: app.name,
    application_type: app.type === 'Native' ? 'native' : 'web',
    grant_types: grantTypes,
    response_types: interactive ? ['code'] : [],
    redirect_uris: interactive ? app.oidcClientMetadata.redirectUris : [],
    post_logout_redirect_uris: interactive ? app.oidcClientMetadata.postLogoutRedirectUris : [],
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
  };
  if (confidential && app.secretDigest) metadata.client_secret = app.secretDigest;
  return metadata;
}
