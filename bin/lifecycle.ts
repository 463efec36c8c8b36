import type { Server } from 'node:http';
import { ConfigurationError } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { StoreUnavailableError } from '../lib/store-unavailable.ts';
import { resolveSettings, type Settings } from '../lib/settings.ts';

/**
 * Exit codes: the configuration is wrong (fix a variable), or the environment is (the port cannot be had, a store
 * does not answer).
 */
const EXIT_CONFIGURATION = 2;
const EXIT_ENVIRONMENT = 1;

function refuse(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/**
 * The settings of an entry point, read before anything is started or logged, so every invalid variable
 * (LOG_LEVEL included) is reported together, without a stack trace, and exits with code 2.
 */
export function settingsOrExit(env: Record<string, string | undefined>): Settings {
  try {
    return resolveSettings(env);
  } catch (error) {
    if (error instanceof ConfigurationError) refuse(error.message, EXIT_CONFIGURATION);
    throw error;
  }
}

/**
 * Listens on `host`:`port`, or exits with code 1 and one line saying why (a port in use, a privileged port, an
 * address this machine does not have).
 */
export async function listenOrExit(server: Server, host: string, port: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the address is already in use'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? 'no such address on this machine'
            : (error as Error).message;
    refuse(`cannot listen on ${hostPort(host, port)}: ${why}${code ? ` (${code})` : ''}`, EXIT_ENVIRONMENT);
  }
}

/** `127.0.0.1:3000`, `[::1]:3000`. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Runs an entry point's main component: a configuration error exits with code 2 and its message, a store that does
 * not answer with code 1 and one line naming it (no stack either). SIGINT/SIGTERM stop it gracefully (exit 0), or
 * by force once `forcedExitMs` has passed, or at once on a second signal (exit 1 both).
 */
export async function runUntilSignalled<T>(
  logger: Logger,
  start: () => Promise<T>,
  stop: (running: T) => Promise<void>,
  forcedExitMs: number,
): Promise<T> {
  let running: T;
  try {
    running = await start();
  } catch (error) {
    if (error instanceof ConfigurationError) refuse(error.message, EXIT_CONFIGURATION);
    if (error instanceof StoreUnavailableError) refuse(`cannot start: ${error.message}`, EXIT_ENVIRONMENT);
    throw error;
  }
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting for the shutdown to finish');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, forcedExitMs }, 'shutting down');
    setTimeout(() => {
      logger.warn({ forcedExitMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, forcedExitMs).unref();
    await stop(running);
    process.exit(0);
  };
  process.on('SIGINT', () => void onSignal('SIGINT'));
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  return running;
}
