import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { requestLogger } from '../http/request-id.ts';
import type { Metrics } from './registry.ts';
import { TOKEN_EXCHANGE_GRANT } from '../impersonation/grant.ts';

/** The user a token was issued for, when a user is behind it (none for client credentials). */
function userOf(ctx: KoaContextWithOIDC): string | undefined {
  const { entities } = ctx.oidc;
  return entities.AccessToken?.accountId ?? entities.AuthorizationCode?.accountId ?? entities.RefreshToken?.accountId;
}

function resourceOf(ctx: KoaContextWithOIDC): string | string[] | undefined {
  const resource: unknown = ctx.oidc.params?.resource;
  if (typeof resource === 'string') return resource;
  return Array.isArray(resource) ? resource.filter((item): item is string => typeof item === 'string') : undefined;
}

/**
 * One info line per token response (grant, client, user, resource; never a token or a parameter that carries one)
 * and the token counters. Only grants the provider serves reach `grant.success`, so the label set stays closed.
 */
export function observeTokenEvents(provider: Provider, deps: { logger: Logger; metrics: Metrics }): void {
  provider.on('grant.success', (ctx) => {
    const grant = String(ctx.oidc.params?.grant_type);
    deps.metrics.tokensIssued.inc({ grant });
    requestLogger(ctx, deps.logger).info(
      {
        grant,
        clientId: ctx.oidc.client?.clientId,
        userId: userOf(ctx),
        resource: resourceOf(ctx),
      },
      'token issued',
    );
  });
  provider.on('grant.error', (ctx, error) => {
    if (ctx.oidc.params?.grant_type !== TOKEN_EXCHANGE_GRANT) return;
    deps.metrics.tokenExchangesRefused.inc({ error: error.error ?? 'server_error' });
  });
}
