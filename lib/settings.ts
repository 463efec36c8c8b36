import { randomBytes } from 'node:crypto';
import { ConfigurationError, readEnvironment, type Environment } from './config.ts';

/** Configuration after defaults that depend on other values were derived. */
export interface Settings extends Environment {
  baseUrl: string;
  issuer: string;
  /** Resource indicator of the management API; tokens for it carry the management scopes. */
  managementIndicator: string;
  cookieKeys: string[];
  embedded: { documents: boolean; keyValue: boolean };
  /** The delivery queue's name; `private` when no other process could consume it (see WEBHOOK_QUEUE_NAME). */
  webhookQueue: { name: string; private: boolean };
}

/**
 * Reads the environment (or an explicit map) into settings. `overrides` win over the environment so that
 * library users and tests can configure an instance without touching `process.env`.
 */
export function resolveSettings(env: Record<string, string | undefined>, overrides: Partial<Environment> = {}): Settings {
  const environment = { ...readEnvironment(env), ...overrides };
  const baseUrl = (environment.BASE_URL ?? `http://localhost:${environment.PORT}`).replace(/\/+$/, '');
  const embedded = { documents: !environment.MONGODB_URI, keyValue: !environment.REDIS_URL };
  if (
    environment.NODE_ENV === 'production'
    && (embedded.documents || embedded.keyValue)
    && !environment.ALLOW_EMBEDDED_IN_PRODUCTION
  ) {
    throw new ConfigurationError(
      'NODE_ENV=production needs MONGODB_URI and REDIS_URL: embedded storage keeps everything in memory and '
      + 'loses it on restart. Set ALLOW_EMBEDDED_IN_PRODUCTION=true to run a throwaway demo anyway.',
    );
  }
  if (Boolean(environment.ADMIN_CLIENT_ID) !== Boolean(environment.ADMIN_CLIENT_SECRET)) {
    throw new ConfigurationError('ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET must be set together');
  }
  if (!environment.WEBHOOK_WORKER_IN_WEB && (embedded.documents || embedded.keyValue)) {
    throw new ConfigurationError(
      'WEBHOOK_WORKER_IN_WEB=false hands webhook delivery to `npm run worker`, which must share the hooks and '
      + 'the queue with this process: set MONGODB_URI and REDIS_URL, or keep the worker in the web process.',
    );
  }
  const cookieKeys = environment.COOKIE_KEYS
    ? environment.COOKIE_KEYS.split(',').map((key) => key.trim()).filter(Boolean)
    : [randomBytes(32).toString('base64url')];
  return {
    ...environment,
    baseUrl,
    issuer: `${baseUrl}/oidc`,
    managementIndicator: `${baseUrl}/api`,
    cookieKeys,
    embedded,
    webhookQueue: webhookQueue(environment.WEBHOOK_QUEUE_NAME, embedded.documents),
  };
}

function webhookQueue(configured: string | undefined, embeddedDocuments: boolean): Settings['webhookQueue'] {
  if (configured) return { name: configured, private: false };
  // Another process on the same Redis could take these jobs but never find their hooks, so it gets none.
  if (embeddedDocuments) return { name: `webhook-deliveries-${randomBytes(6).toString('hex')}`, private: true };
  return { name: 'webhook-deliveries', private: false };
}
