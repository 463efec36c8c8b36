/**
 * A real SMTP server on a loopback port that keeps every message it accepts, parsed, for tests that check what
 * the service emails. Point the service at it with `SMTP_URL: mailbox.url`.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface ReceivedMail {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  /** The From header as written. */
  fromHeader: string;
  subject: string;
  text: string;
  /** '' when the message has no HTML part. */
  html: string;
  /** The SMTP user the client authenticated as, if it did. */
  user: string | undefined;
}

export interface MailboxOptions {
  /** Require these SMTP credentials (AUTH PLAIN/LOGIN over the plain connection). Unset: accept with or without any. */
  credentials?: { user: string; pass: string };
  /** Refuse these recipients with a permanent 550, as a server does for an unknown mailbox. */
  rejects?: (address: string) => boolean;
  /** Hold a message for these recipients until the promise settles before accepting it, as a slow server does. */
  holds?: (address: string) => Promise<void> | undefined;
}

export interface Mailbox {
  /** `smtp://…@127.0.0.1:<port>`, with the credentials when some are required. */
  url: string;
  /** Every message accepted so far (for one recipient when given), oldest first. */
  messages(address?: string): ReceivedMail[];
  /**
   * The next message for `address` that no earlier `waitFor` returned: at once when one is waiting, otherwise
   * the one that arrives within `timeoutMs` (5 s unless given); fails after that.
   */
  waitFor(address: string, options?: { timeoutMs?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startMailbox(options: MailboxOptions = {}): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  const taken = new Map<string, number>();
  const waiters = new Set<() => void>();
  const users = new WeakMap<object, string>();

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !options.credentials,
    allowInsecureAuth: true,
    onAuth(auth, session, callback) {
      const { credentials } = options;
      if (credentials && (auth.username !== credentials.user || auth.password !== credentials.pass)) {
        callback(new Error('invalid credentials'));
        return;
      }
      users.set(session, auth.username ?? '');
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (options.rejects?.(address.address.toLowerCase())) {
        callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const held = session.envelope.rcptTo.map((rcpt) => options.holds?.(rcpt.address.toLowerCase()));
      Promise.all([simpleParser(stream), ...held]).then(
        ([parsed]) => {
          const mailFrom = session.envelope.mailFrom;
          received.push({
            from: mailFrom ? mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            fromHeader: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            user: users.get(session),
          });
          for (const wake of waiters) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const auth = options.credentials
    ? `${encodeURIComponent(options.credentials.user)}:${encodeURIComponent(options.credentials.pass)}@`
    : '';

  const messages = (address?: string) => {
    const wanted = address?.toLowerCase();
    return received.filter((mail) => wanted === undefined || mail.to.includes(wanted));
  };

  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    messages,
    waitFor(address, { timeoutMs = 5000 } = {}) {
      const key = address.toLowerCase();
      return new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          const next = messages(key)[taken.get(key) ?? 0];
          if (!next) return false;
          taken.set(key, (taken.get(key) ?? 0) + 1);
          waiters.delete(check);
          clearTimeout(timer);
          resolve(next);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no message for ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The six-digit verification code in a message's text: the line holding only the code, as the default email
 * templates put it (their first line names the application, whose name may hold six digits too), else the
 * first six-digit number (custom templates, text messages).
 */
export function codeFrom(message: { text: string }): string {
  const match = /^[ \t]*(\d{6})[ \t]*$/m.exec(message.text) ?? /(?<!\d)(\d{6})(?!\d)/.exec(message.text);
  if (!match?.[1]) throw new Error(`no six-digit code in: ${message.text}`);
  return match[1];
}
