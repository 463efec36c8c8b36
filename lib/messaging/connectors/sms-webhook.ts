import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { VERSION } from '../../version.ts';
import { signatureHeaders } from '../../webhooks/signing.ts';
import type { MessageConnector } from './connector.ts';
import { providerRefused, providerUnreachable } from './failures.ts';

/**
 * SMS through an HTTP endpoint of the operator's: a JSON POST `{ to, text, type }` signed like webhook
 * deliveries (Standard Webhooks headers, `webhook-id` = `msg_…` per message), so the receiver verifies it with any
 * Standard Webhooks library and the SMS_WEBHOOK_SIGNING_KEY. Any 2xx is success; redirects are not followed; a
 * request not answered within `timeoutMs` (OUTBOUND_TIMEOUT_MS, from the start) is abandoned as unreachable.
 */
export function createSmsWebhookConnector(options: {
  url: string;
  signingKey: string;
  timeoutMs: number;
  logger: Logger;
}): MessageConnector {
  return {
    name: 'sms-webhook',
    async send(message) {
      const body = JSON.stringify({ to: message.to, text: message.text, type: message.purpose });
      const headers = signatureHeaders({
        deliveryId: `msg_${randomBytes(16).toString('base64url')}`,
        timestamp: Date.now() / 1000,
        body,
        signingKeys: [options.signingKey],
      });
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
          headers: { 'content-type': 'application/json', 'user-agent': `identity-service-sms/${VERSION}`, ...headers },
        });
      } catch (error) {
        options.logger.warn({ err: error, connector: 'sms-webhook', purpose: message.purpose }, 'SMS not sent');
        throw providerUnreachable('SMS webhook');
      }
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) return;
      options.logger.warn(
        { connector: 'sms-webhook', status: response.status, purpose: message.purpose },
        'SMS webhook refused the message',
      );
      throw providerRefused('SMS webhook');
    },
    async close() {},
  };
}
