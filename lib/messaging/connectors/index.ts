import type { Logger } from 'pino';
import { ConfigurationError } from '../../config.ts';
import type { Settings } from '../../settings.ts';
import type { MessagePurpose } from '../templates.ts';
import { createDevelopmentConnector } from './development.ts';
import { createSmsWebhookConnector } from './sms-webhook.ts';
import { createSmtpConnector } from './smtp.ts';

/** A rendered message, ready to go out through a connector. */
interface OutgoingMessage {
  channel: 'email' | 'phone';
  /** Email address or phone number. */
  to: string;
  purpose: MessagePurpose;
  /** Email only. */
  subject: string;
  /** Plain-text email body, or the SMS text. */
  text: string;
  /** Email only. */
  html: string;
}

/**
 * Delivers messages of one channel. A failure is thrown as a domain error: `connector.general` (502) when the
 * provider refused or failed the message, `service.dependency_unavailable` (503) when it could not be reached.
 */
export interface MessageConnector {
  readonly name: 'smtp' | 'sms-webhook' | 'development';
  send(message: OutgoingMessage): Promise<void>;
  close(): Promise<void>;
}

export interface Connectors {
  email: MessageConnector;
  phone: MessageConnector;
  close(): Promise<void>;
}

/**
 * SMTP_URL and SMS_WEBHOOK_URL choose the real connectors; without them, messages go to the development
 * connector, which writes them (codes included) to the log, so production refuses to start on it.
 */
export function createConnectors(settings: Settings, logger: Logger): Connectors {
  const missing = [
    settings.SMTP_URL ? undefined : 'SMTP_URL (email)',
    settings.SMS_WEBHOOK_URL ? undefined : 'SMS_WEBHOOK_URL and SMS_WEBHOOK_SIGNING_KEY (SMS)',
  ].filter((name) => name !== undefined);
  if (settings.NODE_ENV === 'production' && missing.length) {
    throw new ConfigurationError(
      `NODE_ENV=production needs ${missing.join(' and ')}: without them verification codes and invitations would go `
      + 'to the development connector, which writes them to the log instead of sending them.',
    );
  }
  const development = createDevelopmentConnector(logger);
  const email = settings.SMTP_URL
    ? createSmtpConnector({ url: settings.SMTP_URL, from: settings.emailFrom, logger })
    : development;
  const phone = settings.SMS_WEBHOOK_URL && settings.SMS_WEBHOOK_SIGNING_KEY
    ? createSmsWebhookConnector({ url: settings.SMS_WEBHOOK_URL, signingKey: settings.SMS_WEBHOOK_SIGNING_KEY, logger })
    : development;
  if (email === development || phone === development) {
    logger.warn({ email: email.name, phone: phone.name }, 'messages without a configured connector are only logged (development connector)');
  }
  return {
    email, phone,
    async close() {
      await email.close();
      if (phone !== email) await phone.close();
    },
  };
}
