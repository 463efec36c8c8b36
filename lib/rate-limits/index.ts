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
  /**
   * Counts one `/oidc/token` request of a known client; the seconds to wait when it went past
   * `TOKEN_RATE_LIMIT_PER_CLIENT` (and the refusal was counted as a hit), undefined when it may go on.
   */
  countTokenRequest(clientId: string): Promise<number | undefined>;
  /** Takes one subject token from the management client's budget, or throws `request.too_many_requests`. */
  consumeSubjectToken(clientId: string): Promise<void>;
  /** Counts a request refused by the named limit. */
  limited(limit: 'client_auth' | 'management_auth' | 'subject_tokens' | 'token_requests'): void;
}

/** The instance's rate limits, counted in its key-value store (Redis when `REDIS_URL` is set, in memory otherwise). */
export function createRateLimits(deps: { kv: KeyValueStore; settings: Settings; metrics: Metrics }): RateLimits {
  const { kv, settings, metrics } = deps;
  const failurePolicy = {
    limit: settings.AUTH_FAILURE_RATE_LIMIT,
    windowSeconds: settings.AUTH_FAILURE_RATE_WINDOW_SECONDS,
  };
  const subjectTokens = createWindowLimit(kv, 'subject-tokens:client', {
    limit: settings.SUBJECT_TOKEN_RATE_LIMIT,
    windowSeconds: 60,
  });
  const tokenRequests = createWindowLimit(kv, 'token-requests:client', {
    limit: settings.TOKEN_RATE_LIMIT_PER_CLIENT,
    windowSeconds: settings.TOKEN_RATE_LIMIT_WINDOW_SECONDS,
  });
  const limited: RateLimits['limited'] = (limit) => metrics.rateLimitHits.inc({ limit });
  return {
    clientAuth: createAuthFailureLimit(kv, 'oidc', failurePolicy),
    managementAuth: createAuthFailureLimit(kv, 'api', failurePolicy),
    async countTokenRequest(clientId) {
      const wait = await tokenRequests.count(clientId);
      if (wait !== undefined) limited('token_requests');
      return wait;
    },
    async consumeSubjectToken(clientId) {
      const wait = await subjectTokens.count(clientId);
      if (wait === undefined) return;
      limited('subject_tokens');
      throw errors.rateLimited(
        'request.too_many_requests',
        'too many subject tokens created by this client; try again later',
        wait,
      );
    },
    limited,
  };
}
