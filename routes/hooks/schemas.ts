import { z } from 'zod';
import { ALL_EVENTS } from '../../lib/events/catalogue.ts';
import { pagination } from '../../lib/http/api.ts';
import { DELIVERY_STATUSES } from '../../lib/webhooks/deliveries.ts';

/** Headers the service sets itself; letting a hook set them would only be silently overridden. */
const RESERVED_HEADERS = new Set([
  'content-type', 'content-length', 'user-agent', 'host', 'connection', 'transfer-encoding',
  'webhook-id', 'webhook-timestamp', 'webhook-signature', 'logto-signature-sha-256',
]);

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'must be an HTTP header name')
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'is set by the service and cannot be customised');
const headerValue = z.string().max(4096).regex(/^[^\r\n\0]*$/, 'must not contain line breaks');

export const hookConfig = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048),
  headers: z.record(headerName, headerValue)
    .refine((headers) => Object.keys(headers).length <= 50, 'at most 50 headers').optional(),
  /** Logto's deprecated per-hook retry count: accepted, ignored (the schedule is WEBHOOK_RETRY_DELAYS_MS). */
  retries: z.number().int().min(0).max(10).optional(),
}).strict().transform(({ retries: _ignored, ...config }) => config);

const eventNames = z.array(z.string().max(128)).max(100)
  .describe(`Event names from the catalogue: ${ALL_EVENTS.join(', ')}`);

export const createHookBody = z.object({
  name: z.string().trim().min(1).max(128),
  events: eventNames.optional(),
  event: z.string().max(128).optional().describe('Deprecated (Logto): a single event, used when `events` is absent'),
  config: hookConfig,
  enabled: z.boolean().optional(),
}).strict();

export const updateHookBody = z.object({
  name: z.string().trim().min(1).max(128).optional(),
  events: eventNames.optional(),
  config: hookConfig.optional(),
  enabled: z.boolean().optional(),
}).strict();

export const testHookBody = z.object({ events: eventNames.optional(), config: hookConfig }).strict();

const includeExecutionStats = z.stringbool().optional()
  .describe('Adds `executionStats` (attempts and successful attempts over the last 24 hours)');

export const listHooksQuery = pagination.extend({ includeExecutionStats });
export const getHookQuery = z.object({ includeExecutionStats });

export const hook = z.object({
  id: z.string(),
  name: z.string(),
  event: z.null(),
  events: z.array(z.enum(ALL_EVENTS)),
  config: z.object({ url: z.string(), headers: z.record(z.string(), z.string()).optional() }),
  enabled: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const hookWithSigningKey = hook.extend({
  signingKey: z.string().describe('Shown only on creation and rotation: a Standard Webhooks secret (whsec_…)'),
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
  resentFrom: z.string().nullable(),
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
    response: z.object({ status: z.number(), body: z.string() }).optional(),
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
