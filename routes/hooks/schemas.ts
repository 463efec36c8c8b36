import { validateHeaderName, validateHeaderValue } from 'node:http';
import { z } from 'zod';
import { ALL_EVENTS } from '../../lib/events/catalogue.ts';
import { optionalPagination, pagination } from '../../lib/http/api.ts';
import { DELIVERY_STATUSES } from '../../lib/webhooks/delivery.ts';
import { HOOK_ORDERINGS } from '../../lib/webhooks/entity-order.ts';
import { SIGNATURE_SCHEMES } from '../../lib/webhooks/signing.ts';

/** Headers the service sets on every delivery; a hook's value would only be overridden. */
const SERVICE_HEADERS = new Set([
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'logto-signature-sha-256',
]);
/** Connection and framing headers: they belong to the HTTP client, and a hook's value would break every delivery. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** Why a custom header could not go out with a delivery; Node's own checks decide what it can send. */
function headerProblem(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (name.length > 256) return 'the name is longer than 256 characters';
  try {
    validateHeaderName(name);
  } catch {
    return 'is not an HTTP header name';
  }
  if (SERVICE_HEADERS.has(lower)) return 'is set by the service and cannot be customised';
  if (CONNECTION_HEADERS.has(lower) || lower.startsWith('proxy-'))
    return 'is a connection or framing header and cannot be customised';
  if (value.length > 4096) return 'the value is longer than 4096 characters';
  try {
    validateHeaderValue(name, value);
  } catch {
    return 'the value contains a character HTTP headers cannot carry (a control character, a line break or a code point above U+00FF)';
  }
  return undefined;
}

const headers = z.record(z.string(), z.string()).superRefine((entries, ctx) => {
  if (Object.keys(entries).length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 headers' });
  for (const [name, value] of Object.entries(entries)) {
    const problem = headerProblem(name, value);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `header ${JSON.stringify(name.slice(0, 256))} ${problem}`,
      });
  }
});

export const hookConfig = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048),
    headers: headers.optional(),
    retries: z
      .number()
      .int()
      .min(0)
      .max(3)
      .optional()
      .describe(
        "Logto's deprecated retry count (0-3), taken so that Logto's payloads go through and, as in Logto, not used: " +
          'every hook retries on the WEBHOOK_RETRY_DELAYS_MS schedule. Not stored',
      ),
  })
  .strict()
  .transform(({ retries: _deprecated, ...config }) => config);

/** Logto's earlier names of the data events (`User.Updated` before `User.Data.Updated`): the events they became. */
const RENAMED_EVENTS: Readonly<Record<string, string>> = Object.fromEntries(
  ['User', 'Role', 'Scope', 'Organization', 'OrganizationRole', 'OrganizationScope'].map((entity) => [
    `${entity}.Updated`,
    `${entity}.Data.Updated`,
  ]),
);
/** Logto's events this service never emits, and why. */
const UNSUPPORTED_EVENTS: Readonly<Record<string, string>> = {
  PostSignInAdaptiveMfaTriggered:
    'adaptive MFA is not implemented here (its sign-in experience settings are refused), so this event never happens',
};

/** An event name, Logto's earlier spellings taken as the events they became; one that cannot happen here is refused. */
const eventName = z
  .string()
  .max(128)
  .transform((name) => RENAMED_EVENTS[name] ?? name)
  .superRefine((name, ctx) => {
    const reason = UNSUPPORTED_EVENTS[name];
    if (reason) ctx.addIssue({ code: 'custom', message: `${name}: ${reason}` });
  });

const eventNames = z
  .array(eventName)
  .max(100)
  .describe(
    `Event names from the catalogue: ${ALL_EVENTS.join(', ')}; Logto's earlier \`<Entity>.Updated\` names are taken as \`<Entity>.Data.Updated\``,
  );

const ordering = z
  .enum(HOOK_ORDERINGS)
  .optional()
  .describe(
    "`entity`: deliveries about one entity go one at a time, in version order (a failing one holds back only that entity's later ones); `none` (default): all concurrent",
  );

export const createHookBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .optional()
      .describe("Optional as in Logto (legacy `{ event, config }` hooks): ''"),
    events: eventNames.optional(),
    event: eventName.optional().describe('Deprecated (Logto): a single event, used when `events` is absent'),
    config: hookConfig,
    enabled: z.boolean().optional(),
    signature: z
      .enum(SIGNATURE_SCHEMES)
      .optional()
      .describe(
        "`hmac` (default): Standard Webhooks `v1` and Logto's header, keyed by the signingKey; `ed25519`: Standard Webhooks `v1a`, verified with the hook's publicKey. Fixed at creation",
      ),
    ordering,
  })
  .strict();

export const updateHookBody = z
  .object({
    name: z.string().trim().min(1).max(128).optional(),
    events: eventNames.optional(),
    event: eventName
      .nullable()
      .optional()
      .describe(
        'Deprecated (Logto): a single event, subscribing the hook to it alone when `events` is absent; null changes nothing',
      ),
    config: hookConfig.optional(),
    enabled: z.boolean().optional(),
    ordering,
  })
  .strict();

export const testHookBody = z.object({ events: eventNames.optional(), config: hookConfig }).strict();

const includeExecutionStats = z
  .stringbool()
  .optional()
  .describe('Adds `executionStats` (attempts and successful attempts over the last 24 hours)');

/** Without `page` / `page_size` every hook is listed, as in Logto. */
export const listHooksQuery = optionalPagination.extend({ includeExecutionStats });
export const getHookQuery = z.object({ includeExecutionStats });

export const hook = z.object({
  id: z.string(),
  name: z.string(),
  event: z.null(),
  events: z.array(z.enum(ALL_EVENTS)),
  config: z.object({ url: z.string(), headers: z.record(z.string(), z.string()).optional() }),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe('Why the service disabled the hook by itself (410 Gone, every attempt failing too long); null otherwise'),
  signature: z.enum(SIGNATURE_SCHEMES).describe('How deliveries are signed'),
  publicKey: z
    .string()
    .nullable()
    .describe(
      '`ed25519` hooks: the current public key (`whpk_` + base64 of its 32 bytes) that verifies `v1a` signatures; null for `hmac`',
    ),
  ordering: z.enum(HOOK_ORDERINGS),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const hookWithSigningKey = hook.extend({
  signingKey: z
    .string()
    .optional()
    .describe(
      '`hmac` hooks, shown only on creation and rotation: a Standard Webhooks secret (whsec_…). `ed25519` hooks have none to show',
    ),
});

export const hookWithStats = hook.extend({
  executionStats: z.object({ successCount: z.number(), requestCount: z.number() }).optional(),
});

export const delivery = z.object({
  id: z.string().describe('Also the `webhook-id` header of every attempt'),
  hookId: z.string(),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  lastAttemptAt: z.number().nullable(),
  nextRetryAt: z.number().nullable(),
  lastResponseStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  lastLatencyMs: z
    .number()
    .nullable()
    .default(null)
    .describe('How long the last attempt took, from sending to its answer or failure'),
  lastResponseExcerpt: z
    .string()
    .nullable()
    .default(null)
    .describe("The first 200 characters of the last answer's body; the attempt logs keep more"),
  resentFrom: z.string().nullable(),
  webhookId: z
    .string()
    .describe("The `webhook-id` its attempts carry: its id, or for a replay the original delivery's"),
  replayId: z.string().nullable().describe('The replay (POST /api/hooks/:id/replay) that made it, if any'),
  sequence: z.number().nullable().describe("Its event's sequence"),
  version: z.number().nullable().describe("A data event's entity version; null for other events"),
  createdAt: z.number(),
});

export const logEntry = z.object({
  id: z.string(),
  key: z.string().describe('`TriggerHook.<event>`'),
  payload: z.object({
    key: z.string(),
    result: z.enum(['Success', 'Error']),
    hookId: z.string(),
    deliveryId: z.string(),
    event: z.string(),
    attempt: z.number(),
    response: z
      .object({
        status: z.number(),
        statusCode: z.number().describe("Logto's name for status"),
        body: z
          .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
          .describe(
            "The receiver's answer (its first 2 KiB): parsed when it is a whole JSON object or array, else the text",
          ),
      })
      .optional(),
    hookRequest: z
      .object({ body: z.record(z.string(), z.unknown()) })
      .optional()
      .describe('What was sent (Logto): the delivery payload, while the delivery is kept'),
    error: z.string().optional(),
    latencyMs: z.number(),
    nextRetryAt: z.number().nullable(),
  }),
  createdAt: z.number(),
});

export const deliveryDetail = delivery.extend({
  payload: z.record(z.string(), z.unknown()),
  logs: z.array(logEntry),
});

export const listDeliveriesQuery = pagination.extend({ status: z.enum(DELIVERY_STATUSES).optional() });
export const recentLogsQuery = pagination.extend({
  logKey: z.string().max(160).optional().describe('Only entries with this key, e.g. `TriggerHook.User.Created`'),
});
