import type { Logger } from 'pino';
import { errors } from '../../errors.ts';
import type { Settings } from '../../settings.ts';
import type { MessageConnector } from './connector.ts';
import { createDevelopmentConnector } from './development.ts';
import { createSmsWebhookConnector } from './sms-webhook.ts';
import { createSmtpConnector } from './smtp.ts';

export interface Connectors {
  email: MessageConnector;
  phone: MessageConnector;
  close(): Promise<void>;
}

/**
 * SMTP_URL and SMS_WEBHOOK_URL choose the real connectors. Without one, development sends that channel's messages
 * to the development connector, which writes them (codes included) to the log; production never does: a channel
 * without a connector refuses each message with `connector.not_found`, so the service still runs (password
 * sign-in, the management API) and nothing secret reaches the log.
 */
export function createConnectors(settings: Settings, logger: Logger): Connectors {
  const production = settings.NODE_ENV === 'production';
  const fallback = (variable: string) =>
    production ? createUnconfiguredConnector(variable) : createDevelopmentConnector(logger);
  const email = settings.SMTP_URL
    ? createSmtpConnector({ url: settings.SMTP_URL, from: settings.emailFrom, logger })
    : fallback('SMTP_URL');
  const phone =
    settings.SMS_WEBHOOK_URL && settings.SMS_WEBHOOK_SIGNING_KEY
      ? createSmsWebhookConnector({
          url: settings.SMS_WEBHOOK_URL,
          signingKey: settings.SMS_WEBHOOK_SIGNING_KEY,
          timeoutMs: settings.OUTBOUND_TIMEOUT_MS,
          logger,
        })
      : fallback('SMS_WEBHOOK_URL and SMS_WEBHOOK_SIGNING_KEY');
  const unsent = [email, phone].filter((connector) => connector.name === 'development' || connector.name === 'none');
  if (unsent.length) {
    logger.warn(
      { email: email.name, phone: phone.name },
      production
        ? 'a message channel has no connector: its messages are refused'
        : 'messages without a configured connector are only logged (development connector)',
    );
  }
  return {
    email,
    phone,
    async close() {
      await email.close();
      if (phone !== email) await phone.close();
    },
  };
}

/** Production without a connector for a channel: every message of that channel is refused, naming the setting. */
function createUnconfiguredConnector(variable: string): MessageConnector {
  return {
    name: 'none',
    async send(message) {
      throw errors.unprocessable(
        'connector.not_found',
        `no ${message.channel === 'email' ? 'email' : 'SMS'} connector is configured (set ${variable})`,
      );
    },
    async close() {},
  };
}
