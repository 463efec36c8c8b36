import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { MessageConnector } from './connector.ts';
import { providerRefused, providerUnreachable } from './failures.ts';

/** Bounds on one message, well below a browser's patience (nodemailer's own defaults run to minutes). */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** nodemailer's codes for a server that could not be reached or talked to. */
const UNREACHABLE = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

interface SmtpFailure {
  code?: unknown;
  responseCode?: unknown;
}

/** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…` (TLS from the start, port 465 by default). */
function transportOptions(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const auth = url.username
    ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
    : undefined;
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  };
}

/**
 * Email through an SMTP server (nodemailer), one connection per message. nodemailer is loaded with the first
 * message (the URL is checked at once): an instance that sends none does not carry it.
 */
export function createSmtpConnector(options: { url: string; from: string; logger: Logger }): MessageConnector {
  const settings = transportOptions(options.url);
  let transport: Transporter | undefined;
  return {
    name: 'smtp',
    async send(message) {
      try {
        transport ??= (await import('nodemailer')).createTransport(settings);
        await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
      } catch (error) {
        const failure = error as SmtpFailure;
        const status = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
        // 4xx SMTP replies are the server's "try again later".
        const transient =
          (status !== undefined && status >= 400 && status < 500) ||
          (status === undefined && typeof failure.code === 'string' && UNREACHABLE.has(failure.code));
        options.logger.warn({ err: error, connector: 'smtp', purpose: message.purpose }, 'email not sent');
        throw transient ? providerUnreachable('email server') : providerRefused('email server');
      }
    },
    async close() {
      transport?.close();
    },
  };
}
