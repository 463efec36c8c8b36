import { errors } from '../errors.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { Settings } from '../settings.ts';
import { createAuthFailureLimit, type AuthFailureLimit } from './auth-failures.ts';
import { createWindowLimit } from './window.ts';

export interface RateLimits {
  /** Failed client authentications at the token, introspection and revocation endpoints. */
  clientAuth: AuthFailureLimit;
  /** Failed management-API bearer authentications. */
  managementAuth: AuthFailureLimit;
  /** Takes one subject token from the management client's budget, or throws `request.too_many_requests`. */
  consumeSubjectToken(clientId: string): Promise<void>;
  /** Counts a request refused by the named limit. */
  limited(limit: 'client_auth' | 'management_auth' | 'subject_tokens'): void;
}

/** The instance's rate limits, counted in its key-value store (Redis when `REDIS_URL` is set, in memory otherwise). */
export function createRateLimits(deps: { kv: KeyValueStore; settings: Settings; metrics: Metrics }): RateLimits {
  const { kv, settings, metrics } = deps;
  const failurePolicy = { limit: settings.AUTH_FAILURE_RATE_LIMIT, windowSeconds: settings.AUTH_FAILURE_RATE_WINDOW_SECONDS };
  const subjectTokens = createWindowLimit(kv, 'subject-tokens:client', { limit: settings.SUBJECT_TOKEN_RATE_LIMIT, windowSeconds: 60 });
  const limited: RateLimits['limited'] = (limit) => metrics.rateLimitHits.inc({ limit });
  return {
    clientAuth: createAuthFailureLimit(kv, 'oidc', failurePolicy),
    managementAuth: createAuthFailureLimit(kv, 'api', failurePolicy),
    async consumeSubjectToken(clientId) {
      const wait = await subjectTokens.count(clientId);
      if (wait === undefined) return;
      limited('subject_tokens');
      throw errors.rateLimited('request.too_many_requests', 'too many subject tokens created by this client; try again later', wait);
    },
    limited,
  };
}
