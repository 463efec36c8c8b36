import type { KeyValueStore } from '../ports/kv.ts';
import { createWindowLimit, type WindowPolicy } from './window.ts';

/** Who a failed authentication is counted against: the caller's address, and the client it claimed to be. */
export interface AuthAttempt {
  ip?: string | undefined;
  clientId?: string | undefined;
}

/**
 * Failed authentications of one surface (`oidc`: client authentication at the token, introspection and
 * revocation endpoints; `api`: management bearer tokens), counted per client id and per IP address. Successes are
 * never counted, so a busy legitimate client costs only the reads of `blockedFor`. While either count is full,
 * every attempt is refused before its credentials are checked, even a correct one.
 */
export interface AuthFailureLimit {
  blockedFor(attempt: AuthAttempt): Promise<number | undefined>;
  /** Both counts read together (one round trip): the seconds each one is still full for, undefined when it is not. */
  blockedEach(attempt: AuthAttempt): Promise<{ ip: number | undefined; client: number | undefined }>;
  /** Counts a failure; the seconds to wait when it went past the limit (answer 429 instead of 401 then). */
  failed(attempt: AuthAttempt): Promise<number | undefined>;
}

/** Client ids are attacker-chosen strings; a bounded one keeps the counter keys bounded too. */
const MAX_CLIENT_ID = 128;

export function createAuthFailureLimit(
  kv: KeyValueStore,
  surface: 'oidc' | 'api',
  policy: WindowPolicy,
): AuthFailureLimit {
  const byIp = createWindowLimit(kv, `auth-failures:${surface}:ip`, policy);
  const byClient = createWindowLimit(kv, `auth-failures:${surface}:client`, policy);
  const clientKey = (attempt: AuthAttempt) => attempt.clientId?.slice(0, MAX_CLIENT_ID);

  const longest = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.max(a, b);

  /** Reads only the counters the attempt names, both in one call to the store (one round trip). */
  async function blockedEach(attempt: AuthAttempt): Promise<{ ip: number | undefined; client: number | undefined }> {
    const client = clientKey(attempt);
    const ipCounter = attempt.ip ? byIp.counterOf(attempt.ip) : undefined;
    const clientCounter = client ? byClient.counterOf(client) : undefined;
    const counters = [ipCounter, clientCounter].filter((counter) => counter !== undefined);
    if (counters.length === 0) return { ip: undefined, client: undefined };
    const values = await kv.getMany(counters);
    const storedValue = (counter: string) => values[counters.indexOf(counter)] ?? null;
    // A counter that is full asks the store how long it stays so; one that is not answers at once.
    const ipWait = ipCounter === undefined ? undefined : byIp.blockedByValue(ipCounter, storedValue(ipCounter));
    const clientWait =
      clientCounter === undefined ? undefined : byClient.blockedByValue(clientCounter, storedValue(clientCounter));
    if (ipWait === undefined && clientWait === undefined) return { ip: undefined, client: undefined };
    const [ip, byClientId] = await Promise.all([ipWait, clientWait]);
    return { ip, client: byClientId };
  }

  return {
    async blockedFor(attempt) {
      const { ip, client } = await blockedEach(attempt);
      return longest(ip, client);
    },
    blockedEach,
    async failed(attempt) {
      const client = clientKey(attempt);
      const [byAddress, byClientId] = await Promise.all([
        attempt.ip ? byIp.count(attempt.ip) : undefined,
        client ? byClient.count(client) : undefined,
      ]);
      return longest(byAddress, byClientId);
    },
  };
}
