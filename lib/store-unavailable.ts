/**
 * A store the service was configured to use (MongoDB, Redis) that did not answer at start. Its message is one line
 * naming the store, its address (never its credentials) and the driver's reason, so an entry point prints it as it is.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** `host:port` of a connection string, without its user, password, database or options. */
export function addressOf(uri: string): string {
  return /^[a-z+]+:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(uri)?.[1] || uri.replace(/\/\/.*@/, '//');
}

/** The first line of a driver's error message: some (MongoDB's server selection) go on for many. */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0]!.trim() || (error instanceof Error ? error.name : 'unknown error');
}
