/** RFC 8693's grant type and the token type of an access token, as the tests' clients send them. */
export const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const AT = 'urn:ietf:params:oauth:token-type:access_token';
