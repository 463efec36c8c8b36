import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import { ALL_EVENTS } from '../../lib/events/catalogue.ts';
import type { Webhooks } from '../../lib/webhooks/index.ts';
import { MAX_REPLAY_DELIVERIES, REPLAY_KINDS, REPLAY_STATUSES } from '../../lib/webhooks/replays.ts';

const tag = 'Hooks';
const byId = z.object({ id: idParam });
const byReplay = z.object({ id: idParam, replayId: idParam });
const instant = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));

const replayBody = z
  .object({
    since: instant.describe('ISO 8601: the window starts here (inclusive)'),
    until: instant.optional().describe('ISO 8601, default now (inclusive)'),
    events: z
      .array(z.enum(ALL_EVENTS))
      .min(1)
      .max(100)
      .optional()
      .describe("Only these of the hook's events; default every event it subscribes to"),
    failed: z
      .boolean()
      .optional()
      .describe(
        'true: resend every delivery of the window that failed for good (failed, exhausted) instead of every retained event',
      ),
  })
  .strict();

const replay = z.object({
  id: z.string(),
  hookId: z.string(),
  kind: z.enum(REPLAY_KINDS),
  since: z.number(),
  until: z.number(),
  events: z.array(z.enum(ALL_EVENTS)),
  status: z.enum(REPLAY_STATUSES),
  enqueued: z.number().describe('Deliveries queued so far (see GET /api/hooks/:id/deliveries, replayId)'),
  note: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  completedAt: z.number().nullable(),
});

/** Replays: a window of a hook's events (or its failed deliveries) sent again under their original webhook-id. */
export function replayRoutes(api: ApiRouterDeps, webhooks: Webhooks): void {
  const { management, replays } = webhooks;

  declare(api, {
    method: 'post',
    path: '/hooks/:id/replay',
    tag,
    summary: `Send the hook's retained events of a window again (or, with failed, its failed deliveries), under their original webhook-id, as a background job of at most ${MAX_REPLAY_DELIVERIES} deliveries`,
    params: byId,
    body: replayBody,
    status: 202,
    response: replay,
    handler: ({ params, body }) =>
      replays.start(params.id, {
        kind: body.failed ? 'failed' : 'events',
        since: body.since,
        ...(body.until === undefined ? {} : { until: body.until }),
        ...(body.events ? { events: body.events } : {}),
      }),
  });

  declare(api, {
    method: 'get',
    path: '/hooks/:id/replays',
    tag,
    summary: "List the hook's replays, newest first",
    params: byId,
    query: pagination,
    response: z.array(replay),
    async handler({ params, page, paged }) {
      await management.mustFind(params.id);
      return paged(await replays.list(params.id, page));
    },
  });

  declare(api, {
    method: 'get',
    path: '/hooks/:id/replays/:replayId',
    tag,
    summary: 'A replay and its progress',
    params: byReplay,
    response: replay,
    handler: ({ params }) => replays.get(params.id, params.replayId),
  });
}
