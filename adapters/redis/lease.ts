/**
 * A lease in Redis saying which process keeps its documents locally (the SQLite store) while using this Redis. Two such
 * processes behind one Redis would share counters, one-time tokens and sessions' keys but not their documents (a user
 * created on one would be unknown to the other), so the second is refused. The lease expires unless renewed, and a
 * process that holds the same data directory on the same host (a restart after a crash: it holds the directory's lock,
 * so the previous holder is gone) takes it over at once.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../../lib/store-unavailable.ts';

const LEASE_TTL_MS = 15_000;
const RENEW_EVERY_MS = 5_000;

/** Takes the lease unless another holder has it (one not of this host and directory): then answers that holder. */
const ACQUIRE = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] and string.sub(current, 1, #ARGV[3]) ~= ARGV[3] then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface LocalDocumentsLease {
  release(): Promise<void>;
}

export async function leaseLocalDocuments(
  redis: Redis,
  options: { key: string; dataDir: string; onLost: (holder: string) => void },
): Promise<LocalDocumentsLease> {
  const place = `${hostname()}|${options.dataDir}|`;
  const holder = `${place}${process.pid}|${Date.now()}`;
  const describe = (value: string) => {
    const [host, dataDir, pid] = value.split('|');
    return `process ${pid} on ${host} (DATA_DIR ${dataDir})`;
  };
  const acquire = async () => (await redis.eval(ACQUIRE, 1, options.key, holder, LEASE_TTL_MS, place)) as string | null;
  const other = await acquire();
  if (other) {
    throw new StoreUnavailableError(
      `another process that keeps its documents locally already uses this Redis: ${describe(other)}. Processes sharing a ` +
        'Redis must share their documents too: set MONGODB_URI for all of them, or give each its own Redis',
    );
  }
  const renewal = setInterval(() => {
    acquire().then(
      (taken) => taken && options.onLost(describe(taken)),
      () => undefined,
    );
  }, RENEW_EVERY_MS);
  renewal.unref();
  return {
    async release() {
      clearInterval(renewal);
      await redis.eval(RELEASE, 1, options.key, holder).catch(() => undefined);
    },
  };
}
