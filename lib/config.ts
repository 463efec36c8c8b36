import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseNetworks } from './webhooks/destinations.ts';
import { parseRetryDelays } from './webhooks/retry-policy.ts';

/**
 * Every environment variable the service reads, validated at start-up. This file is the variables' only
 * documentation: docs/configuration.md is generated from it (`npm run docs:config`), taking each variable's
 * description from the comment above it, its default from an `@default` line there or else from the schema, its
 * accepted values from the schema, and its section from the nearest `// Section:` line above it.
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
    ctx.issues.push({
      code: 'custom',
      message: `comma-separated IPv4/IPv6 CIDR blocks: ${(error as Error).message}`,
      input: text,
    });
    return z.NEVER;
  }
});
/** An address to listen on: an IP literal (`0.0.0.0` and `::` mean every interface) or a name that resolves to one. */
const listenAddress = z
  .string()
  .refine(
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
const emailFrom = z
  .string()
  .max(320)
  .regex(
    /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/,
    'an email address, optionally as "Name <address>"',
  );

/** Everything after the base is derived from it (`/oidc`, `/api`), so a query or fragment would end up mid-URL. */
const baseUrl = z.url({ protocol: /^https?$/, hostname: /./, error: 'an http:// or https:// URL' }).refine((text) => {
  if (!URL.canParse(text)) return true;
  const url = new URL(text);
  return url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}, 'http[s]://host[:port][/prefix] with no credentials, query or fragment');
/** `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS: what ioredis accepts as a URL. */
const redisUrl = z.url({
  protocol: /^rediss?$/,
  hostname: /./,
  error: 'a redis:// or rediss:// URL naming a host (redis://host:6379)',
});
/**
 * A MongoDB connection string naming a database. Several hosts (`a:27017,b:27017`) are no URL for WHATWG, so the
 * shape is checked here and the driver parses the rest; without a database the driver would quietly use `test`.
 */
const mongodbUri = z
  .string()
  .regex(
    /^mongodb(?:\+srv)?:\/\/(?:[^@/?#]*@)?[^@/?#]+\/[^/?#]+(?:\?[^#]*)?$/,
    'a mongodb:// or mongodb+srv:// connection string naming a database (mongodb://host:27017/identity?replicaSet=rs0)',
  );

/** The signal path is appended to it, so a query or fragment would end up in the middle of the URL. */
const otlpEndpoint = z
  .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
  .refine((text) => {
    // Refinements run after a failed check too; that one already says what is wrong.
    if (!URL.canParse(text)) return true;
    const url = new URL(text);
    return url.search === '' && url.hash === '';
  }, 'http[s]://host[:port][/path] with no query or fragment')
  .transform((text) => text.replace(/\/+$/, ''));

export const environmentSchema = z.object({
  // Section: Server
  /** `production` refuses `STORAGE=memory` and never uses the development message connector. */
  NODE_ENV: z.string().default('development'),
  /** Port of the standalone server (`npm start`). */
  PORT: integer(0).max(65535).default(3000),
  /**
   * Address the standalone server listens on: an IP address (`0.0.0.0` or `::` = every interface) or a host name.
   * Loopback by default, so a development start is not reachable from the network; the container image sets
   * `0.0.0.0`, its port being reachable only where it is published.
   * @default `127.0.0.1` (the image: `0.0.0.0`)
   */
  HOST: listenAddress.default('127.0.0.1'),
  /** Port on which `npm run worker` serves `/healthz`, `/readyz` and `/metrics` (on HOST); 0 = one the system picks. */
  WORKER_PORT: integer(0).max(65535).default(3001),
  /**
   * Public `http://` or `https://` URL, including any mount prefix (no credentials, query or fragment: everything
   * after it is derived from it). The issuer is `$BASE_URL/oidc`, the management API resource `$BASE_URL/api`; its
   * host is the passkeys' relying party ID and its origin the only WebAuthn origin accepted, so behind a proxy it is
   * the public address.
   * @default `http://localhost:$PORT`
   */
  BASE_URL: baseUrl.optional(),
  /**
   * `true` believes `X-Forwarded-For`, `-Proto` and `-Host` (client address, HTTPS, host): only behind a reverse
   * proxy that overwrites them, since anyone can send them otherwise (the client address reaches webhook payloads and
   * rate limits).
   */
  TRUST_PROXY: booleanFlag.default(false),

  // Section: Storage
  /**
   * MongoDB for identity data, OIDC models, delivery logs and the event outbox; unset = documents in the embedded
   * store (`STORAGE`). A `mongodb://` or `mongodb+srv://` connection string that must name a database (refused at
   * start otherwise: the driver would quietly use `test`) and be a replica set (requests run in transactions). Unless
   * the URI sets them, `serverSelectionTimeoutMS`, `connectTimeoutMS` and `waitQueueTimeoutMS` of 5 s and
   * `socketTimeoutMS` of 30 s bound how long a request waits for a MongoDB that is down or stops answering (it then
   * answers 503). One that cannot be reached at start stops the start with one line
   * ([operations](operations.md#starting-and-stopping)).
   */
  MONGODB_URI: mongodbUri.optional(),
  /**
   * Redis for subject tokens, counters, one-time values and the BullMQ delivery queue:
   * `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS; unset = in the embedded store (`STORAGE`).
   * With SQLite documents, only one process may use a given Redis ([storage](storage.md)). `npm start` and
   * `npm run worker` do not start while it does not answer; a library instance starts and reports it on `/readyz`
   * ([operations](operations.md#starting-and-stopping)).
   */
  REDIS_URL: redisUrl.optional(),
  /**
   * The embedded store, for whatever `MONGODB_URI` and `REDIS_URL` leave local: `sqlite`, one durable SQLite file
   * under `DATA_DIR`; `memory`, kept in the process and lost with it (tests and demos; refused with
   * `NODE_ENV=production`). Refused when both `MONGODB_URI` and `REDIS_URL` are set, since nothing is left local then
   * ([storage](storage.md)).
   * @default `sqlite`
   */
  STORAGE: z.enum(['sqlite', 'memory']).optional(),
  /**
   * Directory of the SQLite store (`identity.sqlite`), created with mode 0700, the file 0600; one process holds it at
   * a time.
   */
  DATA_DIR: z.string().min(1).default('./data'),
  /**
   * SQLite's durability: `FULL` syncs every commit to the disk, so a write answered 2xx survives a power cut;
   * `NORMAL` syncs less often, so it survives a crash of the process but the last commits may be lost to a power cut.
   */
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),

  // Section: Bootstrap credentials and keys
  /**
   * Client id of the bootstrap management application; set it together with `ADMIN_CLIENT_SECRET` or not at all.
   * @default `admin-console`
   */
  ADMIN_CLIENT_ID: z
    .string()
    .regex(/^[\w.-]{3,64}$/, '3-64 letters, digits, "_", "." or "-"')
    .optional(),
  /**
   * Its secret; set both or neither. When set, it is applied again on every start. Unset, a secret is generated and
   * printed when the application is created: once per store, so at every start with `STORAGE=memory` (later starts on
   * a durable store say the application exists).
   * @default generated and printed when the application is created
   */
  ADMIN_CLIENT_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * A console admin (a user holding the `console-admin` role), created at start, or given `ADMIN_PASSWORD` again,
   * unsuspended and put back in the role on every start; set both or neither. Unset: while no console admin exists,
   * each start prints a one-time setup link ([console](console.md)).
   */
  ADMIN_USERNAME: z
    .string()
    .max(128)
    .regex(/^[A-Z_a-z]\w*$/, 'a username: a letter or underscore, then letters, digits or underscores')
    .optional(),
  /** That admin's password; it must pass the password policy (the service refuses to start otherwise). */
  ADMIN_PASSWORD: z.string().min(1).max(256).optional(),
  /**
   * Comma-separated cookie signing keys: the first signs, all verify. They also key the connectors' secret encryption
   * and, by default, `MFA_SECRET_KEYS`. Unset, one key is generated at the first start and kept in the document store
   * (`generated_keys`), so sessions outlive a restart on a durable store and every process sharing it uses the same
   * key.
   * @default generated once, kept in the store
   */
  COOKIE_KEYS: z.string().min(1).optional(),
  /**
   * Comma-separated keys that encrypt TOTP secrets at rest (AES-256-GCM, keys derived with HKDF): the first encrypts,
   * all decrypt. Keep a retired key listed while secrets it sealed remain ([mfa](mfa.md#storage-and-encryption)).
   * @default `COOKIE_KEYS`
   */
  MFA_SECRET_KEYS: z.string().min(1).optional(),
  /**
   * A private JWK set (`{"keys":[…]}`, EC P-256 or Ed25519) that signs tokens; a key without `kid` is named by its
   * RFC 7638 thumbprint. Unset = generated on first start and stored with the documents.
   * @default generated once, stored
   */
  SIGNING_KEYS: z.string().min(1).optional(),

  // Section: Tokens
  /** Lifetime of an impersonation subject token, seconds. */
  SUBJECT_TOKEN_TTL_SECONDS: integer(1).max(86_400).default(600),
  /**
   * The longest an impersonation token lives, seconds, whatever its resource's `accessTokenTtl` (or
   * ACCESS_TOKEN_TTL_SECONDS for a userinfo token): the impersonation expires with it.
   */
  IMPERSONATION_TOKEN_MAX_TTL_SECONDS: integer(1).max(86_400).default(3600),
  /**
   * Comma-separated role names whose holders can never be impersonated (subject tokens refused with 422, exchanges with
   * `access_denied`), beyond those always protected: the console-admin role and every role granting a management API
   * scope.
   * @default none beyond those
   */
  IMPERSONATION_PROTECTED_ROLES: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  /**
   * Lifetime of the access tokens that name no resource, seconds: opaque userinfo tokens (authorization code, refresh
   * and token exchange without `resource`) and client-credentials tokens without `resource` while no default resource
   * is set; also the `accessTokenTtl` of a resource created without one. A JWT for a resource lives its resource's
   * `accessTokenTtl` instead (the management API's is 3600 s); changing the variable leaves existing resources alone.
   * Never ID tokens (`idTokenTtl`), refresh tokens, authorization codes (60 s) or subject tokens.
   */
  ACCESS_TOKEN_TTL_SECONDS: integer(1).max(86_400).default(3600),

  // Section: Webhooks
  /**
   * Delay before each webhook retry, comma-separated milliseconds (the default spans about 18 hours).
   * @default `5000,300000,1800000,7200000,18000000,36000000`
   */
  WEBHOOK_RETRY_DELAYS_MS: csvDelays.optional(),
  /** Webhook request timeout, ms. */
  WEBHOOK_TIMEOUT_MS: integer(100).max(60_000).default(10_000),
  /** How long delivery logs and records are kept, days. */
  WEBHOOK_LOG_RETENTION_DAYS: integer(1).max(365).default(14),
  /**
   * How long the event log keeps each event for `GET /api/events` and hook replays, days after it was recorded: the
   * store's TTL sweep removes it then, and a cursor older than what is left answers 410 `event.cursor_expired`. A
   * change applies to events recorded after it.
   */
  EVENT_RETENTION_DAYS: integer(1).max(3650).default(30),
  /** Concurrent webhook deliveries per worker (per process). */
  WEBHOOK_CONCURRENCY: integer(1).max(1000).default(50),
  /**
   * Runs webhook delivery inside the web process (`npm start`); `false` (only with `MONGODB_URI` and `REDIS_URL`)
   * leaves it to `npm run worker` processes.
   */
  WEBHOOK_WORKER_IN_WEB: booleanFlag.default(true),
  /**
   * BullMQ queue shared by web and worker processes; processes sharing one Redis and one database must use the same.
   * Unset with embedded documents = a queue private to the instance (no other process can see its hooks), removed
   * when it closes.
   * @default `webhook-deliveries` with MongoDB; a private queue per instance with embedded documents
   */
  WEBHOOK_QUEUE_NAME: z
    .string()
    .regex(/^[\w.-]{1,100}$/, '1-100 letters, digits, "_", "." or "-"')
    .optional(),
  /**
   * How long a worker holds a running delivery before another may take it over, ms.
   * @default BullMQ's 30 s
   */
  WEBHOOK_LOCK_DURATION_MS: integer(200).max(600_000).optional(),
  /**
   * How often workers look for deliveries whose worker died, ms.
   * @default BullMQ's 30 s
   */
  WEBHOOK_STALLED_INTERVAL_MS: integer(200).max(600_000).optional(),
  /**
   * After a signing-key rotation, how long the previous key keeps signing alongside the new one, so consumers can
   * switch, seconds.
   */
  WEBHOOK_SIGNING_KEY_GRACE_SECONDS: integer(0)
    .max(30 * 86_400)
    .default(86_400),
  /** Upper bound on a consumer's `Retry-After`, so one endpoint cannot park a delivery for days, ms. */
  WEBHOOK_RETRY_AFTER_CAP_MS: integer(0).max(86_400_000).default(3_600_000),
  /**
   * Comma-separated IPv4/IPv6 CIDR blocks webhooks (and connector providers, which may also use loopback) may reach
   * although not public, e.g. `10.20.0.0/16,fd00::/8`. Unset = public addresses only, so a hook cannot be aimed at
   * loopback, cloud metadata or the internal network ([webhooks](webhooks.md#destinations-public-addresses-only)).
   * @default none: public addresses only
   */
  WEBHOOK_ALLOWED_NETWORKS: cidrList.optional(),
  /**
   * Deliveries in flight to one origin per worker, so a slow endpoint holds only its share of `WEBHOOK_CONCURRENCY`;
   * more wait in the queue without using an attempt. At most `WEBHOOK_CONCURRENCY`.
   * @default a fifth of `WEBHOOK_CONCURRENCY` (at least 1)
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: integer(1).max(1000).optional(),
  /**
   * Consecutive failed attempts to one origin (timeout, network error, `5xx`, `408`, `429`, `3xx`) that open its
   * circuit: its deliveries then wait without requests.
   */
  WEBHOOK_BREAKER_FAILURES: integer(1).max(10_000).default(10),
  /** How long an open circuit sends nothing before one probe, ms; doubled per failed probe, up to 32×. */
  WEBHOOK_BREAKER_OPEN_MS: integer(100).max(3_600_000).default(30_000),
  /**
   * A hook whose every attempt failed this long is disabled, with `disabledReason` (as Svix does after 5 days), ms;
   * `0` = never.
   */
  WEBHOOK_AUTO_DISABLE_AFTER_MS: integer(0)
    .max(90 * 86_400_000)
    .default(5 * 86_400_000),

  // Section: Connectors and outbound requests
  /**
   * Comma-separated CIDR blocks on which the endpoints a non-public issuer's discovery document names (token,
   * userinfo, JWKS) may be, besides the issuer's own origin: an internal identity provider whose token endpoint is on
   * another host. An issuer on a public address may name endpoints on public addresses only, whatever this lists
   * ([connectors](connectors.md)).
   * @default none: the issuer's own origin only
   */
  CONNECTOR_ENDPOINT_NETWORKS: cidrList.optional(),
  /**
   * Total deadline of one request to an identity provider (discovery, JWKS, token, userinfo) or to the SMS webhook,
   * from resolving its host to the last byte of its answer, ms: an upstream trickling its answer is cut off at it.
   */
  OUTBOUND_TIMEOUT_MS: integer(100).max(60_000).default(10_000),

  // Section: JWT customizer
  /**
   * Wall-clock limit of a stored customizer script, ms, waiting for a free worker included ([the
   * sandbox](oidc.md#the-sandbox)).
   */
  JWT_CUSTOMIZER_TIMEOUT_MS: integer(10).max(30_000).default(3000),
  /** Memory limit of a stored customizer script, MiB. */
  JWT_CUSTOMIZER_MEMORY_MB: integer(1).max(1024).default(32),
  /**
   * Most sandbox worker threads running stored customizer scripts for token requests at once, started only as load
   * needs them; test runs may use one more.
   * @default the number of CPUs (`os.availableParallelism()`, at most 64)
   */
  JWT_CUSTOMIZER_WORKERS: integer(1)
    .max(64)
    .default(() => Math.min(availableParallelism(), 64)),

  // Section: Sign-in and messages
  /**
   * Failed verifications (passwords and codes, on the sign-in pages, the Experience API and the Account API) that
   * lock an account (all its identifiers), or an identifier that names no account (Identifier.Lockout); also the most
   * secrets checked per `LOCKOUT_SECONDS` window ([the lockout](sign-in.md#the-lockout)). The sign-in experience's
   * `sentinelPolicy.maxAttempts` replaces it while set.
   */
  LOCKOUT_THRESHOLD: integer(1).max(1000).default(10),
  /**
   * How long a lock lasts (every attempt refused, even a correct one), and how long failures are remembered without a
   * successful sign-in, seconds. The sign-in experience's `sentinelPolicy.lockoutDuration` (minutes) replaces it while set.
   */
  LOCKOUT_SECONDS: integer(1).max(86_400).default(600),
  /**
   * SMTP email connector for codes and invitations: `smtp://user:pass@host:587` or `smtps://user:pass@host`, with no
   * path, query or fragment. Unset = the development connector, which only logs; in production, email is then refused
   * with `connector.not_found` ([messages](messages.md)).
   */
  SMTP_URL: smtpUrl.optional(),
  /**
   * Sender of every email: an address, or `Name <address>`.
   * @default `no-reply@<BASE_URL host>`
   */
  EMAIL_FROM: emailFrom.optional(),
  /**
   * HTTP SMS connector: a signed JSON POST `{ to, text, type }` per message. Unset = the development connector; in
   * production, SMS is then refused with `connector.not_found`.
   */
  SMS_WEBHOOK_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
  /**
   * Standard Webhooks secret (`whsec_` + base64 of at least 24 bytes) that signs every SMS webhook request; required
   * with `SMS_WEBHOOK_URL`.
   */
  SMS_WEBHOOK_SIGNING_KEY: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'whsec_ followed by base64 of at least 24 bytes')
    .optional(),
  /** Lifetime of a verification code, seconds. */
  VERIFICATION_CODE_TTL_SECONDS: integer(1).max(86_400).default(600),
  /**
   * Messages one recipient (email address or phone number) may be sent per window; protects inboxes and SMS budgets.
   */
  MESSAGE_RATE_LIMIT_COUNT: integer(1).max(10_000).default(10),
  /**
   * The message limits' window, seconds; it starts with the first message to a recipient (or from a sender): the
   * per-sender budgets use windows of the same length.
   */
  MESSAGE_RATE_LIMIT_WINDOW_SECONDS: integer(1).max(86_400).default(600),
  /**
   * Codes the Experience API, the sign-in pages and the Account API may send for one client address per window,
   * whatever the recipients; `0` = no such budget. Raise it when many users share one address (behind `TRUST_PROXY`,
   * the forwarded address counts).
   */
  MESSAGE_RATE_LIMIT_PER_IP: integer(0).max(1_000_000).default(100),
  /**
   * Codes one sign-in, registration or password reset (OIDC interaction) may send per window, whatever the
   * recipients; `0` = no such budget.
   */
  MESSAGE_RATE_LIMIT_PER_INTERACTION: integer(0).max(10_000).default(10),
  /**
   * Codes one signed-in user may have sent through the Account API per window, whatever the recipients; `0` = no such
   * budget.
   */
  MESSAGE_RATE_LIMIT_PER_USER: integer(0).max(10_000).default(10),
  /**
   * Directory of message templates (`<Purpose>.subject.txt`, `.txt`, `.html`, `.sms.txt`) read at start-up
   * ([templates](messages.md)).
   */
  MESSAGE_TEMPLATES_DIR: z.string().min(1).optional(),

  // Section: Rate limits
  /**
   * Failed client authentications (`/oidc/token`, introspection, revocation) and failed management-API
   * authentications (401 at `/api`) allowed per client id and per IP address in one window; past it, 429 with
   * `Retry-After`, even for a correct secret. Successes never count. `0` = off, only behind another limiter ([rate
   * limits](operations.md#rate-limits)).
   */
  AUTH_FAILURE_RATE_LIMIT: integer(0).max(1_000_000).default(30),
  /** The failed-authentication window, seconds; it starts with the first failure. */
  AUTH_FAILURE_RATE_WINDOW_SECONDS: integer(1).max(86_400).default(60),
  /**
   * Subject tokens one management client may create per minute (`POST /api/subject-tokens`); past it, 429
   * `request.too_many_requests`. Generous: it caps a runaway or stolen client. `0` = off (the benchmark turns it
   * off).
   */
  SUBJECT_TOKEN_RATE_LIMIT: integer(0).max(1_000_000).default(1000),
  /**
   * `/oidc/token` requests one known client may make per window, successful or not (counted once the client is known,
   * before its secret is checked); past it, 429 `temporarily_unavailable` with `Retry-After` and no token issued. `0`
   * = off, the default: a deployment opts in with a figure that fits its clients.
   */
  TOKEN_RATE_LIMIT_PER_CLIENT: integer(0).max(1_000_000).default(0),
  /** The per-client token-request window, seconds; it starts with the client's first counted request. */
  TOKEN_RATE_LIMIT_WINDOW_SECONDS: integer(1).max(86_400).default(60),

  // Section: Observability
  /**
   * Bearer token (16–256 characters) `GET /metrics` requires. Unset = the endpoint is open (a warning at every start
   * says so), so keep it off the public network ([metrics](operations.md#metrics)).
   */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').max(256).optional(),
  /**
   * OTLP/HTTP collector base URL (`http://` or `https://`, no query or fragment), e.g. `http://otel-collector:4318`:
   * each request's server span is exported to `<endpoint>/v1/traces` ([traces](operations.md#traces)). Unset = no
   * traces, and the OpenTelemetry modules are not even loaded.
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

/**
 * Variables that became settings an admin changes at runtime. Refused rather than ignored: a deployment that still
 * sets one would otherwise believe a rule holds that nobody enforces.
 */
const REPLACED_BY_SETTINGS: Readonly<Record<string, string>> = {
  IMPERSONATION_REQUIRE_REASON:
    "the sign-in experience's impersonation.requireReason (PATCH /api/sign-in-exp, or the console)",
};

/** Parses `process.env` (or any map); unknown variables are ignored, invalid ones fail with every problem listed. */
export function readEnvironment(env: Record<string, string | undefined>): Environment {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const replaced = Object.keys(present)
    .filter((name) => Object.hasOwn(REPLACED_BY_SETTINGS, name))
    .map((name) => `${name}: no longer read; use ${REPLACED_BY_SETTINGS[name]}`);
  const result = environmentSchema.safeParse(present);
  if (replaced.length || !result.success) {
    const problems = [
      ...replaced,
      ...(result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    ];
    throw new ConfigurationError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}
