import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs. Anything that could carry a credential is redacted by path, so a careless
 * `logger.info({ req })` cannot leak one.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'identity-service' },
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret', '*.client_secret',
        '*.subjectToken', '*.subject_token', '*.actor_token', '*.signingKey', '*.code',
      ],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
