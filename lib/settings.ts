import { randomBytes } from 'node:crypto';
import { ConfigurationError, readEnvironment, type Environment } from './config.ts';

/** Configuration after defaults that depend on other values were derived. */
export interface Settings extends Environment {
  baseUrl: string;
  issuer: string;
  /** Resource indicator of the management API; tokens for it carry the management scopes. */
  managementIndicator: string;
  cookieKeys: string[];
  /** Keys sealing MFA secrets at rest: MFA_SECRET_KEYS, else the cookie keys. */
  mfaSecretKeys: string[];
  /** Which stores are local to this process (not MongoDB, not Redis), and the embedded store that keeps them. */
  embedded: { documents: boolean; keyValue: boolean };
  storage: 'sqlite' | 'memory';
  /** The delivery queue's name; `private` when no other process could consume it (see WEBHOOK_QUEUE_NAME). */
  webhookQueue: { name: string; private: boolean };
  /** WEBHOOK_ENDPOINT_CONCURRENCY, or a fifth of WEBHOOK_CONCURRENCY (at least 1). */
  webhookEndpointConcurrency: number;
  /** Sender of every email: EMAIL_FROM, or `no-reply@` the BASE_URL host. */
  emailFrom: string;
}

/**
 * Reads the environment (or an explicit map) into settings. `overrides` win over the environment so that
 * library users and tests can configure an instance without touching `process.env`.
 */
export function resolveSettings(
  env: Record<string, string | undefined>,
  overrides: Partial<Environment> = {},
): Settings {
  const environment = { ...readEnvironment(env), ...overrides };
  const baseUrl = (environment.BASE_URL ?? `http://localhost:${environment.PORT}`).replace(/\/+$/, '');
  const embedded = { documents: !environment.MONGODB_URI, keyValue: !environment.REDIS_URL };
  if (environment.STORAGE && !embedded.documents && !embedded.keyValue) {
    throw new ConfigurationError(
      `STORAGE=${environment.STORAGE} has no effect with both MONGODB_URI and REDIS_URL set: nothing is kept locally; unset it`,
    );
  }
  const storage = environment.STORAGE ?? 'sqlite';
  if (environment.NODE_ENV === 'production' && storage === 'memory') {
    throw new ConfigurationError(
      'STORAGE=memory is refused with NODE_ENV=production: it loses everything on restart. Unset it to keep the data ' +
        'in one SQLite file under DATA_DIR (single node), or set MONGODB_URI and REDIS_URL (scale-out).',
    );
  }
  if (Boolean(environment.SMS_WEBHOOK_URL) !== Boolean(environment.SMS_WEBHOOK_SIGNING_KEY)) {
    throw new ConfigurationError(
      'SMS_WEBHOOK_URL and SMS_WEBHOOK_SIGNING_KEY must be set together: every SMS request is signed',
    );
  }
  if (Boolean(environment.ADMIN_CLIENT_ID) !== Boolean(environment.ADMIN_CLIENT_SECRET)) {
    throw new ConfigurationError('ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET must be set together');
  }
  if (Boolean(environment.ADMIN_USERNAME) !== Boolean(environment.ADMIN_PASSWORD)) {
    throw new ConfigurationError('ADMIN_USERNAME and ADMIN_PASSWORD must be set together');
  }
  if (!environment.WEBHOOK_WORKER_IN_WEB && (embedded.documents || embedded.keyValue)) {
    throw new ConfigurationError(
      'WEBHOOK_WORKER_IN_WEB=false hands webhook delivery to `npm run worker`, which must share the hooks and ' +
        'the queue with this process: set MONGODB_URI and REDIS_URL, or keep the worker in the web process.',
    );
  }
  if ((environment.WEBHOOK_ENDPOINT_CONCURRENCY ?? 0) > environment.WEBHOOK_CONCURRENCY) {
    throw new ConfigurationError(
      `WEBHOOK_ENDPOINT_CONCURRENCY (${environment.WEBHOOK_ENDPOINT_CONCURRENCY}) cannot exceed WEBHOOK_CONCURRENCY ` +
        `(${environment.WEBHOOK_CONCURRENCY}): it is each endpoint's share of those deliveries`,
    );
  }
  const cookieKeys = environment.COOKIE_KEYS
    ? splitKeys(environment.COOKIE_KEYS)
    : [randomBytes(32).toString('base64url')];
  return {
    ...environment,
    baseUrl,
    issuer: `${baseUrl}/oidc`,
    managementIndicator: `${baseUrl}/api`,
    cookieKeys,
    mfaSecretKeys: environment.MFA_SECRET_KEYS ? splitKeys(environment.MFA_SECRET_KEYS) : cookieKeys,
    embedded,
    storage,
    webhookQueue: webhookQueue(environment.WEBHOOK_QUEUE_NAME, embedded.documents),
    webhookEndpointConcurrency:
      environment.WEBHOOK_ENDPOINT_CONCURRENCY ?? Math.max(1, Math.floor(environment.WEBHOOK_CONCURRENCY / 5)),
    emailFrom: environment.EMAIL_FROM ?? defaultSender(baseUrl),
  };
}

/** `no-reply@` the public host; an IP address becomes an address literal (`no-reply@[127.0.0.1]`), as SMTP wants it. */
function defaultSender(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  const literal = /^\d+(?:\.\d+){3}$/.test(host)
    ? `[${host}]`
    : host.startsWith('[')
      ? `[IPv6:${host.slice(1, -1)}]`
      : host;
  return `no-reply@${literal}`;
}

function webhookQueue(configured: string | undefined, embeddedDocuments: boolean): Settings['webhookQueue'] {
  if (configured) return { name: configured, private: false };
  // Another process on the same Redis could take these jobs but never find their hooks, so it gets none.
  if (embeddedDocuments) return { name: `webhook-deliveries-${randomBytes(6).toString('hex')}`, private: true };
  return { name: 'webhook-deliveries', private: false };
}

function splitKeys(list: string): string[] {
  return list
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
}
