import type { Authorization } from '../roles/authorization.ts';

/** What the policy reads of the calling client and of the token being introspected. */
interface Caller {
  clientId: string;
}
interface IntrospectedToken {
  kind: string;
  clientId?: string | undefined;
  aud?: string | string[] | undefined;
}

/**
 * Who may learn what a token is (`features.introspection.allowedPolicy`); everyone else gets
 * `{ active: false }`, exactly as for an unknown token, so the endpoint reveals nothing about others' tokens.
 *
 * - The client the token was issued to may introspect it (access, client-credentials and refresh tokens).
 * - The resource server of an API may introspect access tokens whose audience is that API. A resource
 *   server is an application holding at least one of the API's scopes through its roles (only
 *   machine-to-machine applications hold roles). Refresh tokens are never shown to a resource server.
 *
 * JWT access tokens never reach this policy: they are self-contained, verified with the JWKS, and the
 * provider refuses to introspect them.
 */
export function createIntrospectionPolicy(deps: {
  repositories: { resources: { findByIndicator(indicator: string): Promise<{ id: string } | null> } };
  authorization: Pick<Authorization, 'scopesForApplication'>;
}) {
  async function servesAudience(clientId: string, indicator: string): Promise<boolean> {
    const resource = await deps.repositories.resources.findByIndicator(indicator);
    if (!resource) return false;
    return (await deps.authorization.scopesForApplication(clientId, resource.id)).length > 0;
  }

  return async function introspectionAllowed(
    _ctx: unknown,
    client: Caller,
    token: IntrospectedToken,
  ): Promise<boolean> {
    if (token.clientId === client.clientId) return true;
    if (token.kind === 'RefreshToken') return false;
    const audiences = token.aud === undefined ? [] : [token.aud].flat();
    for (const audience of audiences) {
      if (await servesAudience(client.clientId, audience)) return true;
    }
    return false;
  };
}
