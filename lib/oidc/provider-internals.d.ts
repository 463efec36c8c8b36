// The provider's own refresh-token and client-credentials grants and the helpers they are bound to, which its package does not declare
// (lib/oidc/boundary.ts is their one importer).
declare module 'oidc-provider/lib/actions/grants/refresh_token.js' {
  export const handler: (provider: unknown, helpers: Record<string, unknown>, ctx: unknown) => Promise<void>;
  export const parameters: Set<string>;
}
declare module 'oidc-provider/lib/actions/grants/client_credentials.js' {
  export const handler: (provider: unknown, helpers: Record<string, unknown>, ctx: unknown) => Promise<void>;
  export const parameters: Set<string>;
}
declare module 'oidc-provider/lib/helpers/grants.js' {
  const helpers: Record<string, (...args: unknown[]) => unknown>;
  export = helpers;
}
