import type { MessagePurpose } from '../templates.ts';

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
  readonly name: 'smtp' | 'sms-webhook' | 'development' | 'none';
  send(message: OutgoingMessage): Promise<void>;
  close(): Promise<void>;
}
