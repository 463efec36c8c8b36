import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from '../errors.ts';
import type { Authorization } from '../roles/authorization.ts';

/** A resource server that proved who it is, and the APIs (resource indicators) it serves. */
export interface ResourceServerPrincipal {
  clientId: string;
  audiences: string[];
}

const ALL_RESOURCES = { page: 1, pageSize: 1000 };

function basicCredentials(header: string): { id: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/**
 * Authenticates a resource server as the introspection endpoint does: an application's client id and secret in HTTP
 * Basic, compared as the token endpoint compares them (digest, constant time, the failed-authentication limit). It
 * serves the APIs on which its roles grant at least one scope; an application serving none is refused (403).
 */
export function createResourceServerAuth(deps: {
  provider: Provider;
  resources: {
    list(page: { page: number; pageSize: number }): Promise<{ items: Array<{ id: string; indicator: string }> }>;
  };
  authorization: Pick<Authorization, 'scopesForApplication'>;
}) {
  return async function authenticate(ctx: Context): Promise<ResourceServerPrincipal> {
    const credentials = basicCredentials(ctx.get('authorization'));
    if (!credentials) throw errors.unauthorized('HTTP Basic client authentication is required');
    const client = await deps.provider.Client.find(credentials.id);
    if (!client || !(await client.compareClientSecret(credentials.secret))) {
      throw errors.unauthorized('client authentication failed');
    }
    const audiences: string[] = [];
    for (const resource of (await deps.resources.list(ALL_RESOURCES)).items) {
      if ((await deps.authorization.scopesForApplication(client.clientId, resource.id)).length > 0)
        audiences.push(resource.indicator);
    }
    if (audiences.length === 0)
      throw errors.refused('auth.not_a_resource_server', 'the client holds no scope of any API');
    return { clientId: client.clientId, audiences };
  };
}
