import type { Logger } from 'pino';
import type { MessageConnector } from './connector.ts';

/** Sends nothing: writes each message, code or link included, to the log at info, for development and tests. */
export function createDevelopmentConnector(logger: Logger): MessageConnector {
  return {
    name: 'development',
    async send(message) {
      logger.info(
        {
          connector: 'development',
          channel: message.channel,
          to: message.to,
          purpose: message.purpose,
          text: message.text,
        },
        `development connector: ${message.purpose} message for ${message.to} (not sent)`,
      );
    },
    async close() {},
  };
}
