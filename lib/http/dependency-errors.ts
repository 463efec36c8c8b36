/**
 * Recognises failures of a backing store (MongoDB, Redis) as opposed to bugs, so that they answer 503
 * "dependency unavailable" rather than an opaque 500.
 */
const DEPENDENCY_ERROR_NAMES = new Set([
  // MongoDB driver: no server to talk to, a connection lost or cleared, an operation past its timeoutMS, a
  // client or topology closed under the request.
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
  'MongoServerClosedError',
  'MongoPoolClearedError',
  'MongoOperationTimeoutError',
  'MaxRetriesPerRequestError',
  // The embedded SQLite store: a write that could not be made durable (disk full, read-only, I/O error).
  'DurableWriteError',
]);

/** Server errors that mean "no usable primary right now" (elections, shutdowns, unreachable members). */
const UNAVAILABLE_CODE_NAMES = new Set([
  'NotWritablePrimary',
  'NotPrimaryNoSecondaryOk',
  'NotPrimaryOrSecondary',
  'PrimarySteppedDown',
  'InterruptedAtShutdown',
  'InterruptedDueToReplStateChange',
  'ShutdownInProgress',
  'HostUnreachable',
  'HostNotFound',
  'NetworkTimeout',
  'SocketException',
  'ExceededTimeLimit',
  'MaxTimeMSExpired',
]);

/**
 * Labels the driver puts on errors whose operation may succeed if tried again: a write conflict between two
 * transactions, a commit whose outcome is unknown, a retryable write that ran out of retries.
 */
const RETRY_LABELS = ['TransientTransactionError', 'UnknownTransactionCommitResult', 'RetryableWriteError'];

function hasRetryLabel(error: Error): boolean {
  const check = (error as { hasErrorLabel?: unknown }).hasErrorLabel;
  return typeof check === 'function' && RETRY_LABELS.some((label) => Boolean(check.call(error, label)));
}

export function isDependencyFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (DEPENDENCY_ERROR_NAMES.has(current.name)) return true;
    if ('codeName' in current && UNAVAILABLE_CODE_NAMES.has(String(current.codeName))) return true;
    if (hasRetryLabel(current)) return true;
    if (/^(Connection is closed|Stream isn't writeable)/.test(current.message)) return true;
    if ('code' in current && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(String(current.code)))
      return true;
  }
  return false;
}
