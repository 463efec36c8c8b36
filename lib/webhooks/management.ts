import { errors } from '../errors.ts';
import { ALL_EVENTS, isEventName, type EventName } from '../events/catalogue.ts';
import { newId } from '../ids.ts';
import type { Page, PageResult } from '../data/entity.ts';
import type { DeliveryLogs } from './delivery-logs.ts';
import { hookErrors } from './errors.ts';
import type { HookCache } from './hook-cache.ts';
import { presentHook, type Hook, type HookConfig, type HookRecord, type HooksRepository } from './hooks.ts';
import type { DeliveriesRepository } from './deliveries.ts';
import type { DestinationPolicy } from './destinations.ts';
import type { EntityOrder, HookOrdering } from './entity-order.ts';
import { generateSigningKey, type SignatureScheme } from './signing.ts';

export interface NewHook {
  /** Logto's default: no name. */
  name?: string;
  events?: string[];
  /** Logto's deprecated single event, taken when `events` is absent. */
  event?: string;
  config: HookConfig;
  enabled?: boolean;
  /** Default `hmac`. */
  signature?: SignatureScheme;
  /** Default `none`. */
  ordering?: HookOrdering;
}

export interface HookUpdate {
  name?: string;
  events?: string[];
  config?: HookConfig;
  enabled?: boolean;
  ordering?: HookOrdering;
}

export type HookWithStats = Hook & { executionStats?: { successCount: number; requestCount: number } };

const STATS_WINDOW_MS = 24 * 3600 * 1000;
/** Keys retired by rotations in quick succession; more would only lengthen every signature header. */
const MAX_RETIRED_KEYS = 3;
const ROTATION_TRIES = 3;

/** The events a hook subscribes to: at least one, every one from the catalogue. */
export function subscription(events: string[] | undefined, event?: string): EventName[] {
  const requested = [...new Set(events ?? (event ? [event] : []))];
  if (requested.length === 0) throw hookErrors.missingEvents();
  const unknown = requested.filter((name) => !isEventName(name));
  if (unknown.length > 0) throw hookErrors.unknownEvents(unknown, ALL_EVENTS);
  return requested as EventName[];
}

/** Hook registration rules. Every committed change invalidates the hook cache of every process. */
export function createHookManagement(deps: {
  hooks: HooksRepository;
  cache: HookCache;
  deliveries: DeliveriesRepository;
  logs: DeliveryLogs;
  order: Pick<EntityOrder, 'forgetHook'>;
  signingKeyGraceMs: number;
  destinations: DestinationPolicy;
}) {
  const { hooks, cache } = deps;

  /** A literal IP can be judged now; a host name only when sending, once resolved. */
  function mustBeAllowed(config: HookConfig): HookConfig {
    const refusal = deps.destinations.refusalOfLiteral(new URL(config.url).hostname);
    if (refusal) throw hookErrors.destinationNotAllowed(refusal);
    return config;
  }

  async function mustFind(id: string): Promise<HookRecord> {
    const found = await hooks.findById(id);
    if (!found) throw errors.notFound('hook', id);
    return found;
  }

  /** The hook with its new HMAC key, shown once; an Ed25519 hook's private key never leaves (its public key does). */
  function withSecret(record: HookRecord): Hook & { signingKey?: string } {
    const hook = presentHook(record);
    return hook.signature === 'hmac' ? { ...hook, signingKey: record.signingKey } : hook;
  }

  async function withStats(record: HookRecord, include: boolean): Promise<HookWithStats> {
    const hook = presentHook(record);
    if (!include) return hook;
    return { ...hook, executionStats: await deps.logs.stats(record.id, Date.now() - STATS_WINDOW_MS) };
  }

  return {
    mustFind,

    async create(input: NewHook): Promise<Hook & { signingKey?: string }> {
      const now = Date.now();
      const signature = input.signature ?? 'hmac';
      const record = await hooks.insert({
        id: newId(),
        name: input.name ?? '',
        event: null,
        events: subscription(input.events, input.event),
        config: mustBeAllowed(input.config),
        enabled: input.enabled ?? true,
        disabledReason: null,
        signature,
        ordering: input.ordering ?? 'none',
        signingKey: generateSigningKey(signature),
        retiredSigningKeys: [],
        createdAt: now,
        updatedAt: now,
      });
      await cache.invalidate();
      return withSecret(record);
    },

    async get(id: string, options: { includeExecutionStats?: boolean } = {}): Promise<HookWithStats> {
      return withStats(await mustFind(id), options.includeExecutionStats ?? false);
    },

    async list(page: Page, options: { includeExecutionStats?: boolean } = {}): Promise<PageResult<HookWithStats>> {
      const { items, total } = await hooks.list(page);
      const include = options.includeExecutionStats ?? false;
      return { items: await Promise.all(items.map((record) => withStats(record, include))), total };
    },

    async update(id: string, changes: HookUpdate): Promise<Hook> {
      const before = await mustFind(id);
      const { events, config, ...rest } = changes;
      const updated = await hooks.update(id, {
        ...rest,
        ...(events === undefined ? {} : { events: subscription(events) }),
        ...(config === undefined ? {} : { config: mustBeAllowed(config) }),
        // An operator's switch replaces whatever reason the service had.
        ...(rest.enabled === undefined ? {} : { disabledReason: null }),
      });
      if (!updated) throw errors.notFound('hook', id);
      await cache.invalidate();
      // Deliveries that finish while the hook is unordered are not counted off: a switch starts the order afresh.
      if ((updated.ordering ?? 'none') !== (before.ordering ?? 'none')) await deps.order.forgetHook(id);
      return presentHook(updated);
    },

    /** The hook's deliveries and logs go with it; its queued jobs find no hook and end quietly. */
    async remove(id: string): Promise<void> {
      if (!(await hooks.delete(id))) throw errors.notFound('hook', id);
      await cache.invalidate();
      await Promise.all([deps.deliveries.removeOfHook(id), deps.logs.removeOfHook(id), deps.order.forgetHook(id)]);
    },

    /**
     * A new current key; the replaced one keeps signing (a second `v1,` or `v1a,` signature) for the grace period.
     * Conditional on the key read, so two concurrent rotations cannot drop a key consumers still hold.
     */
    async rotateSigningKey(id: string): Promise<Hook & { signingKey?: string }> {
      for (let tries = 0; tries < ROTATION_TRIES; tries += 1) {
        const current = await mustFind(id);
        const now = Date.now();
        const retiredSigningKeys = [
          { key: current.signingKey, until: now + deps.signingKeyGraceMs },
          ...current.retiredSigningKeys,
        ]
          .filter((retired) => retired.until > now)
          .slice(0, MAX_RETIRED_KEYS);
        const signingKey = generateSigningKey(current.signature ?? 'hmac');
        const updated = await hooks.update(id, { signingKey, retiredSigningKeys }, current.signingKey);
        if (updated) {
          await cache.invalidate();
          return withSecret(updated);
        }
      }
      throw hookErrors.rotationConflict();
    },

    /** The service turning a hook off by itself; true when this call did (it was still enabled). */
    async disable(id: string, reason: string): Promise<boolean> {
      const disabled = await hooks.disableIfEnabled(id, reason);
      if (disabled) await cache.invalidate();
      return disabled;
    },
  };
}

export type HookManagement = ReturnType<typeof createHookManagement>;
