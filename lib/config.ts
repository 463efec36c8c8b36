import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseNetworks } from './webhooks/destinations.ts';
import { parseRetryDelays } from './webhooks/retry-policy.ts';

/**
 * Every environment variable the service reads, validated at start-up. The README's configuration table
 * mirrors this file; each default says what it does and why.
 */
const integer = (min: number) => z.coerce.number().int().min(min);
const csvDelays = z.string().transform((text, ctx) => {
  try {
    return parseRetryDelays(text);
  } catch {
    ctx.issues.push({ code: 'custom', message: 'comma-separated non-negative integers (milliseconds)', input: text });
    return z.NEVER;
  }
});
const cidrList = z.string().transform((text, ctx) => {
  try {
    return parseNetworks(text);
  } catch (error) {
    ctx.issues.push({ code: 'custom', message: `comma-separated IPv4/IPv6 CIDR blocks: ${(error as Error).message}`, input: text });
    return z.NEVER;
  }
});
/** An address to listen on: an IP literal (`0.0.0.0` and `::` mean every interface) or a name that resolves to one. */
const listenAddress = z.string().refine(
  (text) => isIP(text) !== 0 || z.hostname().safeParse(text).success,
  'an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name',
);
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** `smtp://user:pass@host:587` or `smtps://…`: the URL carries the whole connection, nothing else is read from it. */
const smtpUrl = z.url({ protocol: /^smtps?$/, error: 'an smtp:// or smtps:// URL' }).refine((text) => {
  const url = new URL(text);
  return url.search === '' && url.hash === '' && (url.pathname === '' || url.pathname === '/');
}, 'smtp[s]://[user:password@]host[:port] with no path, query or fragment');
/** A bare address (`no-reply@example.com`) or one with a display name (`Example <no-reply@example.com>`). */
const emailFrom = z.string().max(320).regex(/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, 'an email address, optionally as "Name <address>"');

/** Everything after the base is derived from it (`/oidc`, `/api`), so a query or fragment would end up mid-URL. */
const baseUrl = z.url({ protocol: /^https?$/, hostname: /./, error: 'an http:// or https:// URL' }).refine((text) => {
  if (!URL.canParse(text)) return true;
  const url = new URL(text);
  return url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}, 'http[s]://host[:port][/prefix] with no credentials, query or fragment');
/** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS: what ioredis accepts as a URL. */
const redisUrl = z.url({ protocol: /^rediss?$/, hostname: /./, error: 'a redis:// or rediss:// URL naming a host (redis://host:6379)' });
/**
 * A MongoDB connection string naming a database. Several hosts (`a:27017,b:27017`) are no URL for WHATWG, so the
 * shape is checked here and the driver parses the rest; without a database the driver would quietly use `test`.
 */
const mongodbUri = z.string().regex(
  /^mongodb(?:\+srv)?:\/\/(?:[^@/?#]*@)?[^@/?#]+\/[^/?#]+(?:\?[^#]*)?$/,
  'a mongodb:// or mongodb+srv:// connection string naming a database (mongodb://host:27017/identity?replicaSet=rs0)',
);

/** The signal path is appended to it, so a query or fragment would end up in the middle of the URL. */
const otlpEndpoint = z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).refine((text) => {
  // Refinements run after a failed check too; that one already says what is wrong.
  if (!URL.canParse(text)) return true;
  const url = new URL(text);
  return url.search === '' && url.hash === '';
}, 'http[s]://host[:port][/path] with no query or fragment').transform((text) => text.replace(/\/+$/, ''));

export const environmentSchema = z.object({
  NODE_ENV: z.string().default('development'),
  /** Port of the standalone server. */
  PORT: integer(0).max(65535).default(3000),
  /**
   * Address the standalone server listens on. Loopback by default, so a development start is not reachable from the
   * network; the container image sets `0.0.0.0`, since its port is published on purpose.
   */
  HOST: listenAddress.default('127.0.0.1'),
  /** Public base URL, including any mount prefix; the issuer is `${BASE_URL}/oidc`. */
  BASE_URL: baseUrl.optional(),
  /**
   * MongoDB connection string naming a database; unset = documents in the embedded store (STORAGE). A MongoDB that
   * cannot be reached at start stops the start with one line.
   */
  MONGODB_URI: mongodbUri.optional(),
  /**
   * Redis URL; unset = counters, tokens and the delivery queue in the embedded store (STORAGE). `npm start` and
   * `npm run worker` do not start without it answering; a library instance starts and reports it on `/readyz`.
   */
  REDIS_URL: redisUrl.optional(),
  /**
   * The embedded store, for whatever MONGODB_URI and REDIS_URL leave local: `sqlite` (default), one durable SQLite file
   * under DATA_DIR; `memory`, kept in the process and lost with it (tests and demos; refused with NODE_ENV=production).
   * Refused when both MONGODB_URI and REDIS_URL are set, since nothing is left local then.
   */
  STORAGE: z.enum(['sqlite', 'memory']).optional(),
  /** Directory of the SQLite store (`identity.sqlite`), created 0700 with the file 0600; one process holds it at a time. */
  DATA_DIR: z.string().min(1).default('./data'),
  /**
   * SQLite's durability: `FULL` (default) syncs every commit to the disk, so a write answered 2xx survives a power cut;
   * `NORMAL` syncs less often, so it survives a crash of the process but the last commits may be lost to a power cut.
   */
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  /**
   * Believe `X-Forwarded-For`, `-Proto` and `-Host`: only behind a reverse proxy that sets them, since
   * anyone can send them otherwise (the client address reaches webhook payloads).
   */
  TRUST_PROXY: booleanFlag.default(false),
  /**
   * Credentials of the bootstrap management application; unset = generated and printed when the application is created:
   * once per store, so at every start with embedded documents (later starts on a durable store say they exist).
   */
  ADMIN_CLIENT_ID: z.string().regex(/^[\w.-]{3,64}$/, '3-64 letters, digits, "_", "." or "-"').optional(),
  ADMIN_CLIENT_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * A console admin (a user holding the `console-admin` role), created or given this password again on every start;
   * unset = the first start without any admin prints a one-time setup link instead.
   */
  ADMIN_USERNAME: z.string().max(128).regex(/^[A-Z_a-z]\w*$/, 'a username: a letter or underscore, then letters, digits or underscores').optional(),
  ADMIN_PASSWORD: z.string().min(1).max(256).optional(),
  /**
   * Comma-separated cookie signing keys (first signs, all verify); unset = one generated at the first start and kept in
   * the document store (so sessions outlive a restart on a durable store).
   */
  COOKIE_KEYS: z.string().min(1).optional(),
  /**
   * Comma-separated keys that encrypt MFA secrets at rest (TOTP secrets, AES-256-GCM): the first encrypts, all
   * decrypt. Default: COOKIE_KEYS. Keep a retired key listed while secrets it sealed remain.
   */
  MFA_SECRET_KEYS: z.string().min(1).optional(),
  /** A private JWK set (JSON) used to sign tokens; unset = generated once and persisted in the store. */
  SIGNING_KEYS: z.string().min(1).optional(),
  /** Lifetime of an impersonation subject token, seconds. */
  SUBJECT_TOKEN_TTL_SECONDS: integer(1).max(86_400).default(600),
  /** Lifetime of access tokens for resources without their own `accessTokenTtl`, seconds. */
  ACCESS_TOKEN_TTL_SECONDS: integer(1).max(86_400).default(3600),
  /** Webhook retry schedule: delay before each retry, ms. The default spans about 18 hours. */
  WEBHOOK_RETRY_DELAYS_MS: csvDelays.optional(),
  /** Webhook request timeout, ms. */
  WEBHOOK_TIMEOUT_MS: integer(100).max(60_000).default(10_000),
  /** How long webhook delivery logs are kept, days. */
  WEBHOOK_LOG_RETENTION_DAYS: integer(1).max(365).default(14),
  /** Concurrent webhook deliveries per worker process. */
  WEBHOOK_CONCURRENCY: integer(1).max(1000).default(50),
  /** Runs the webhook worker inside the web process (`npm start`); `npm run worker` runs it alone. */
  WEBHOOK_WORKER_IN_WEB: booleanFlag.default(true),
  /**
   * BullMQ queue shared by web and worker processes. Unset with embedded documents = a queue private to
   * the instance (no other process can see its hooks), removed when it closes.
   */
  WEBHOOK_QUEUE_NAME: z.string().regex(/^[\w.-]{1,100}$/, '1-100 letters, digits, "_", "." or "-"').optional(),
  /** How long a worker holds a running delivery before another may take it over (BullMQ default 30 s). */
  WEBHOOK_LOCK_DURATION_MS: integer(200).max(600_000).optional(),
  /** How often workers look for deliveries whose worker died (BullMQ default 30 s). */
  WEBHOOK_STALLED_INTERVAL_MS: integer(200).max(600_000).optional(),
  /** After a signing-key rotation, the previous key keeps signing this long so consumers can switch, seconds. */
  WEBHOOK_SIGNING_KEY_GRACE_SECONDS: integer(0).max(30 * 86_400).default(86_400),
  /** Upper bound on a consumer's `Retry-After`, so one endpoint cannot park a delivery for days, ms. */
  WEBHOOK_RETRY_AFTER_CAP_MS: integer(0).max(86_400_000).default(3_600_000),
  /**
   * Non-public networks webhooks may reach anyway (comma-separated CIDR blocks). Unset = public addresses
   * only, so a hook cannot be aimed at loopback, cloud metadata or the internal network.
   */
  WEBHOOK_ALLOWED_NETWORKS: cidrList.optional(),
  /**
   * Deliveries in flight to one origin per worker process, so a slow endpoint holds only its share of
   * WEBHOOK_CONCURRENCY; the rest wait in the queue. Unset = a fifth of WEBHOOK_CONCURRENCY (at least 1).
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: integer(1).max(1000).optional(),
  /** Consecutive failed attempts to one origin that open its circuit: its deliveries then wait without requests. */
  WEBHOOK_BREAKER_FAILURES: integer(1).max(10_000).default(10),
  /** How long an open circuit stays open before one probe is let through (doubled per failed probe, up to 32×), ms. */
  WEBHOOK_BREAKER_OPEN_MS: integer(100).max(3_600_000).default(30_000),
  /** A hook whose every attempt failed for this long is disabled (as Svix does after 5 days); 0 = never, ms. */
  WEBHOOK_AUTO_DISABLE_AFTER_MS: integer(0).max(90 * 86_400_000).default(5 * 86_400_000),
  /**
   * Networks (comma-separated CIDR blocks) on which the endpoints a non-public issuer's discovery document names
   * may be, besides the issuer's own origin: an internal identity provider whose token endpoint is on another host.
   * Unset = that origin only. An issuer on a public address may name endpoints on public addresses only, whatever
   * this lists.
   */
  CONNECTOR_ENDPOINT_NETWORKS: cidrList.optional(),
  /**
   * Total time one request to an identity provider (discovery, keys, token, userinfo) or to the SMS webhook may take,
   * from resolving its host to the last byte of its answer, ms: an upstream trickling its answer is cut off at it.
   */
  OUTBOUND_TIMEOUT_MS: integer(100).max(60_000).default(10_000),
  /** Wall-clock limit of a stored JWT customizer script, ms. */
  JWT_CUSTOMIZER_TIMEOUT_MS: integer(10).max(30_000).default(3000),
  /** Memory limit of a stored JWT customizer script, MiB. */
  JWT_CUSTOMIZER_MEMORY_MB: integer(1).max(1024).default(32),
  /** Most sandbox worker threads running stored customizer scripts at once for token issuance (started as load needs them). */
  JWT_CUSTOMIZER_WORKERS: integer(1).max(64).default(() => Math.min(availableParallelism(), 64)),
  /** Failed sign-in verifications within one window that lock the account (all its identifiers), or an identifier naming no account. */
  LOCKOUT_THRESHOLD: integer(1).max(1000).default(10),
  /** How long a lock lasts, and how long failures are remembered without a success, seconds. */
  LOCKOUT_SECONDS: integer(1).max(86_400).default(600),
  /** SMTP connector for email codes and invitations; unset = the development connector, which only logs. */
  SMTP_URL: smtpUrl.optional(),
  /** Sender of every email; unset = `no-reply@<BASE_URL host>`. */
  EMAIL_FROM: emailFrom.optional(),
  /** HTTP SMS connector: a signed JSON POST `{ to, text, type }` per message; unset = the development connector. */
  SMS_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
  /** Standard Webhooks secret (`whsec_` + base64) that signs every SMS webhook request; required with SMS_WEBHOOK_URL. */
  SMS_WEBHOOK_SIGNING_KEY: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'whsec_ followed by base64 of at least 24 bytes').optional(),
  /** Lifetime of a verification code, seconds. */
  VERIFICATION_CODE_TTL_SECONDS: integer(1).max(86_400).default(600),
  /** Messages one recipient (email address or phone number) may be sent per window; protects inboxes and SMS budgets. */
  MESSAGE_RATE_LIMIT_COUNT: integer(1).max(10_000).default(10),
  /** The rate limits' window, seconds; it starts with the first message to a recipient (or from a sender). */
  MESSAGE_RATE_LIMIT_WINDOW_SECONDS: integer(1).max(86_400).default(600),
  /**
   * Messages the Experience API, the sign-in pages and the Account API may send for one client address per window
   * (the recipients' window), whatever the recipients; 0 = no such budget. Raise it when many users share an address.
   */
  MESSAGE_RATE_LIMIT_PER_IP: integer(0).max(1_000_000).default(100),
  /** Messages one sign-in, registration or password reset (OIDC interaction) may send per window, whatever the recipients; 0 = none. */
  MESSAGE_RATE_LIMIT_PER_INTERACTION: integer(0).max(10_000).default(10),
  /** Verification codes one signed-in user may have sent through the Account API per window, whatever the recipients; 0 = none. */
  MESSAGE_RATE_LIMIT_PER_USER: integer(0).max(10_000).default(10),
  /** Directory of message templates (`<Purpose>.subject.txt`, `.txt`, `.html`, `.sms.txt`) read at start-up. */
  MESSAGE_TEMPLATES_DIR: z.string().min(1).optional(),
  /**
   * Failed client authentications (token, introspection, revocation) and failed management-API authentications
   * allowed per client id and per IP address in one window; past it, 429 with `Retry-After`, even for a correct
   * secret. Successes never count. 0 = off (only behind another limiter).
   */
  AUTH_FAILURE_RATE_LIMIT: integer(0).max(1_000_000).default(30),
  /** The failed-authentication window, seconds; it starts with the first failure. */
  AUTH_FAILURE_RATE_WINDOW_SECONDS: integer(1).max(86_400).default(60),
  /** Subject tokens one management client may create per minute; generous, it caps a runaway or stolen client. 0 = off. */
  SUBJECT_TOKEN_RATE_LIMIT: integer(0).max(1_000_000).default(1000),
  /**
   * `/oidc/token` requests (successful or not) one known client may make per window; past it, 429 before any token
   * is issued. 0 = off, the default: a deployment opts in with a figure that fits its clients.
   */
  TOKEN_RATE_LIMIT_PER_CLIENT: integer(0).max(1_000_000).default(0),
  /** The per-client token-request window, seconds; it starts with the client's first counted request. */
  TOKEN_RATE_LIMIT_WINDOW_SECONDS: integer(1).max(86_400).default(60),
  /** Bearer token `GET /metrics` requires; unset = the endpoint is open (keep it off the public network then; a warning at start says so). */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').max(256).optional(),
  /**
   * OTLP/HTTP collector base URL: each request's span is exported to `<endpoint>/v1/traces`. Unset = no tracing
   * (the OpenTelemetry modules are not even loaded).
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint.optional(),
  /** `service.name` of the exported spans. */
  OTEL_SERVICE_NAME: z.string().min(1).max(256).default('identity-service'),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Environment = z.infer<typeof environmentSchema>;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/** Parses `process.env` (or any map); unknown variables are ignored, invalid ones fail with every problem listed. */
export function readEnvironment(env: Record<string, string | undefined>): Environment {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = environmentSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigurationError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}
