import { ConfigurationError } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';

const FORCED_EXIT_MS = 15_000;

/**
 * Runs an entry point's main component: a configuration error exits with code 2 and its message (no stack);
 * SIGINT/SIGTERM stop it gracefully (exit 0), or forcibly once FORCED_EXIT_MS has passed (exit 1).
 */
export async function runUntilSignalled<T>(
  logger: Logger,
  start: () => Promise<T>,
  stop: (running: T) => Promise<void>,
): Promise<T> {
  let running: T;
  try {
    running = await start();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), FORCED_EXIT_MS).unref();
    await stop(running);
    process.exit(0);
  };
  process.on('SIGINT', () => void onSignal('SIGINT'));
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  return running;
}
