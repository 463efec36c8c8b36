/** The service's version, as in package.json: the OpenAPI document and the webhook user agent name it. */
export const VERSION = '0.1.0';
