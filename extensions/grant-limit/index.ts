import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { EventBus } from '../../lib/events/bus.ts';
import type { Applications } from '../../lib/applications/index.ts';
import type { OidcRevocation } from '../../lib/oidc/revocation.ts';
import { when } from '../../lib/http/when.ts';

const AUTHORIZED = Symbol('authorization succeeded');

/**
 * `customClientMetadata.maxAllowedGrants`: when a successful authorization leaves a user with more live
 * grants for an application than it allows, the oldest ones (and every token issued under them) are revoked
 * and Grant.LimitExceeded is published — before the authorization response leaves.
 */
export function enforceGrantLimits(
  provider: Provider,
  deps: {
    applications: Pick<Applications, 'findById'>;
    grants: Pick<OidcRevocation, 'activeGrants' | 'revokeGrants'>;
    bus: EventBus;
  },
): void {
  provider.on('authorization.success', (ctx: KoaContextWithOIDC) => {
    (ctx.state as Record<symbol, boolean>)[AUTHORIZED] = true;
  });

  // Only the authorization endpoint (`/auth`, and `/auth/:uid` where an interaction resumes) authorizes.
  provider.use(
    when(
      (ctx) => ctx.path === '/auth' || ctx.path.startsWith('/auth/'),
      (ctx, next) => limitGrants(ctx as KoaContextWithOIDC, next),
    ),
  );
  async function limitGrants(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (!(ctx.state as Record<symbol, boolean>)[AUTHORIZED]) return;
    const { oidc } = ctx;
    const accountId = oidc.session?.accountId;
    const clientId = oidc.client?.clientId;
    if (!accountId || !clientId) return;
    const app = await deps.applications.findById(clientId);
    const limit = app?.customClientMetadata.maxAllowedGrants;
    if (!limit) return;
    const grantIds = await deps.grants.activeGrants(accountId, clientId);
    if (grantIds.length <= limit) return;
    const current = oidc.session?.grantIdFor(clientId);
    const revokedGrantIds = grantIds.filter((id) => id !== current).slice(0, grantIds.length - limit);
    await deps.grants.revokeGrants(revokedGrantIds);
    await deps.bus.emit('Grant.LimitExceeded', {
      userId: accountId,
      applicationId: clientId,
      revokedGrantIds,
      maxAllowedGrants: limit,
      preRevocationActiveGrantCount: grantIds.length,
    });
  }
}
