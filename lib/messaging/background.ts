import type { Logger } from 'pino';
import { DomainError } from '../errors.ts';

/**
 * Messages sent after the request that asked for them has been answered, so that the answer takes the same time
 * whether or not anything was delivered (the address has an account or not). A failure cannot be answered any
 * more: it is logged (never with the code), not lost. Each send is keyed by what it replaces (purpose and
 * recipient), so that checking a code first waits for a send of that key still under way in this process.
 */
export function createBackgroundSends(logger: Logger) {
  const pending = new Map<string, Promise<void>>();
  const all = new Set<Promise<void>>();

  return {
    run(key: string, send: () => Promise<void>, about: { purpose: string; channel: string }): void {
      const previous = pending.get(key) ?? Promise.resolve();
      const task = previous.then(send).catch((error: unknown) => {
        const code = error instanceof DomainError ? error.code : undefined;
        logger.warn(
          { ...about, ...(code ? { code } : { err: error }) },
          'a message sent in the background was not delivered',
        );
      });
      pending.set(key, task);
      all.add(task);
      void task.finally(() => {
        all.delete(task);
        if (pending.get(key) === task) pending.delete(key);
      });
    },
    /** Settles once the sends of `key` under way now are over. */
    settled: (key: string): Promise<void> => pending.get(key) ?? Promise.resolve(),
    /**
     * Settles once every send under way is over, or after `deadlineMs` (a mail server trickling its replies keeps
     * a send going past its connector's idle timeouts): what is still going then is logged and left behind.
     */
    async idle(deadlineMs: number): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), deadlineMs);
      });
      const done = (async () => {
        while (all.size > 0) await Promise.all([...all]);
      })();
      if ((await Promise.race([done, late])) === 'late') {
        logger.warn({ pending: all.size }, 'messages still being sent in the background at shutdown were left behind');
      }
      clearTimeout(timer);
    },
  };
}
