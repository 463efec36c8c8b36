import type { Context, Middleware } from 'koa';
import { jsonErrorMiddleware } from '../../lib/http/errors.ts';
import { when } from '../../lib/http/when.ts';
import type { Logger } from 'pino';
import { composeMiddleware } from '../../lib/oidc/boundary.ts';

/** Where browsers look for the related origins of an RP ID: `https://<RP ID>/.well-known/webauthn`. */
const WEBAUTHN_WELL_KNOWN = '/.well-known/webauthn';

/**
 * WebAuthn related origin requests: `{ origins }` names the other sites whose pages may use the service's passkeys
 * (the account center's `webauthnRelatedOrigins`). Public, as browsers fetch it without credentials.
 */
export function webauthnWellKnown(origins: () => Promise<readonly string[]>, logger: Logger): Middleware {
  return when(
    (ctx) => ctx.path === WEBAUTHN_WELL_KNOWN && (ctx.method === 'GET' || ctx.method === 'HEAD'),
    composeMiddleware([
      jsonErrorMiddleware(logger),
      async (ctx: Context) => {
        ctx.body = { origins: await origins() };
      },
    ]),
  );
}
