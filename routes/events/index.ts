import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { errors } from '../../lib/errors.ts';
import { ALL_EVENTS, isEventName, type EventName } from '../../lib/events/catalogue.ts';
import { MANAGEMENT_SCOPES } from '../../lib/management/auth.ts';
import { eventJsonSchema } from '../../lib/events/schemas.ts';

const tag = 'Events';
/** Longest page of `GET /api/events`. */
const MAX_LIMIT = 500;
/** A cursor is the sequence of the last event it covers: a decimal integer, at most 15 digits (exact in a double). */
const CURSOR = /^(0|[1-9]\d{0,14})$/;

const listEventsQuery = z.object({
  after: z
    .string()
    .optional()
    .describe(
      'A `nextCursor` from an earlier page; absent: from the oldest retained event. Anything else is 400 event.invalid_cursor',
    ),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(100),
  types: z
    .string()
    .max(4096)
    .optional()
    .describe('Comma-separated event names: only these are listed (the cursor still moves past the others)'),
});

const eventPage = z.object({
  events: z
    .array(z.record(z.string(), z.unknown()))
    .describe('Events in sequence order, each as webhooks deliver it without `hookId`'),
  nextCursor: z.string().describe('Pass as `after` for the next page: every event up to it was listed or filtered out'),
});

function cursorOf(after: string | undefined): number | undefined {
  if (after === undefined) return undefined;
  if (!CURSOR.test(after))
    throw errors.invalid('event.invalid_cursor', 'after must be a nextCursor handed out by GET /api/events');
  return Number(after);
}

function typesOf(types: string | undefined): EventName[] | undefined {
  if (types === undefined) return undefined;
  const names = types
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isEventName(name));
  if (unknown.length > 0) {
    throw errors.invalidInput(`unknown events: ${unknown.join(', ')}; valid events are ${ALL_EVENTS.join(', ')}`, {
      unknownEvents: unknown,
      validEvents: ALL_EVENTS,
    });
  }
  return names as EventName[];
}

/**
 * `/api/events`: the retained events in commit order, read with a gap-free cursor (docs/webhooks.md, "Events API");
 * `/api/hook-events/:event/schema`: each event type's published JSON Schema.
 */
export function eventRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'events'>): void {
  declare(api, {
    method: 'get',
    path: '/events',
    tag,
    scope: MANAGEMENT_SCOPES.readEvents,
    summary:
      'List retained events after a cursor, in sequence order (410 event.cursor_expired when some after it are gone)',
    query: listEventsQuery,
    response: eventPage,
    async handler({ query }) {
      const page = await core.events.page({
        after: cursorOf(query.after),
        limit: query.limit,
        types: typesOf(query.types),
      });
      return { events: page.events, nextCursor: String(page.next) };
    },
  });

  declare(api, {
    method: 'get',
    path: '/hook-events/:event/schema',
    tag,
    scope: null,
    summary:
      "An event type's payload as a JSON Schema (draft 2020-12), as webhooks deliver it; public, like the OpenAPI document",
    params: z.object({ event: z.string().max(128) }),
    response: z.record(z.string(), z.unknown()),
    async handler({ params }) {
      if (!isEventName(params.event)) throw errors.notFound('event type', params.event);
      return eventJsonSchema(params.event);
    },
  });
}
