/**
 * The names impersonation goes by on the wire and in the provider's records, in one place. No imports, so the console
 * can use them too.
 */

/** RFC 8693's grant type, which the token endpoint takes for an impersonation. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The grant type node-oidc-provider records on the tokens our token-exchange grant issues (`gty`). */
export const TOKEN_EXCHANGE_GTY = 'token_exchange';

/** RFC 8693's token type of an access token: the subject, actor and issued token's type. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** Logto's name for a subject token's type, accepted as an alias so Logto clients work unchanged. */
export const IMPERSONATION_TOKEN_TYPE = 'urn:logto:token-type:impersonation_token';
