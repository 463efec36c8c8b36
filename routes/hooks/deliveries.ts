import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import { errors } from '../../lib/errors.ts';
import { LOG_KEY_PREFIX } from '../../lib/webhooks/delivery-logs.ts';
import type { Webhooks } from '../../lib/webhooks/index.ts';
import { delivery, deliveryDetail, listDeliveriesQuery, logEntry, recentLogsQuery } from './schemas.ts';

const tag = 'Hooks';
const byId = z.object({ id: idParam });
const byDelivery = z.object({ id: idParam, deliveryId: idParam });
const RECENT_MS = 24 * 3600 * 1000;

/** What happened to a hook's deliveries: attempt logs (Logto's recent-logs) and per-delivery state. */
export function deliveryRoutes(api: ApiRouterDeps, webhooks: Webhooks): void {
  const { management, deliveries, logs } = webhooks;

  declare(api, {
    method: 'get',
    path: '/hooks/:id/recent-logs',
    tag,
    summary: 'List the attempts of the last 24 hours, newest first',
    params: byId,
    query: recentLogsQuery,
    response: z.array(logEntry),
    async handler({ params, query, page, paged }) {
      await management.mustFind(params.id);
      const event = query.logKey?.startsWith(LOG_KEY_PREFIX) ? query.logKey.slice(LOG_KEY_PREFIX.length) : query.logKey;
      const recent = await logs.recent(params.id, Date.now() - RECENT_MS, page, event);
      // Logto's hookRequest: what the attempt sent, read from its delivery while that is kept.
      const payloads = new Map<string, Record<string, unknown>>();
      for (const deliveryId of new Set(recent.items.map((entry) => entry.payload.deliveryId))) {
        const found = await deliveries.find(params.id, deliveryId);
        if (found) payloads.set(deliveryId, found.payload);
      }
      return paged({
        total: recent.total,
        items: recent.items.map((entry) => {
          const body = payloads.get(entry.payload.deliveryId);
          return body ? { ...entry, payload: { ...entry.payload, hookRequest: { body } } } : entry;
        }),
      });
    },
  });

  declare(api, {
    method: 'get',
    path: '/hooks/:id/deliveries',
    tag,
    summary: 'List deliveries with their status, newest first',
    params: byId,
    query: listDeliveriesQuery,
    response: z.array(delivery),
    async handler({ params, query, page, paged }) {
      await management.mustFind(params.id);
      return paged(await deliveries.list(params.id, page, query.status));
    },
  });

  declare(api, {
    method: 'get',
    path: '/hooks/:id/deliveries/:deliveryId',
    tag,
    summary: 'Get a delivery, its payload and its attempts',
    params: byDelivery,
    response: deliveryDetail,
    async handler({ params }) {
      await management.mustFind(params.id);
      const found = await deliveries.find(params.id, params.deliveryId);
      if (!found) throw errors.notFound('delivery', params.deliveryId);
      return { ...found, logs: await logs.ofDelivery(found.id) };
    },
  });

  declare(api, {
    method: 'post',
    path: '/hooks/:id/deliveries/:deliveryId/resend',
    tag,
    summary: "Send a delivery's payload again, as a new delivery with a new id",
    params: byDelivery,
    status: 202,
    response: delivery,
    handler: ({ params }) => webhooks.resend(params.id, params.deliveryId),
  });
}
