/**
 * Recognises failures of a backing store (MongoDB, Redis) as opposed to bugs, so that they answer 503
 * "dependency unavailable" rather than an opaque 500.
 */
const DEPENDENCY_ERROR_NAMES = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError',
  'MongoTopologyClosedError', 'MaxRetriesPerRequestError',
]);

export function isDependencyFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (DEPENDENCY_ERROR_NAMES.has(current.name)) return true;
    if (/^(Connection is closed|Stream isn't writeable)/.test(current.message)) return true;
    if ('code' in current && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(String(current.code))) return true;
  }
  return false;
}
