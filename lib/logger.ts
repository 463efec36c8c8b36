import { pino, type Logger } from 'pino';
import type { Environment } from './config.ts';

/**
 * Anything that could carry a credential is redacted by path, so a careless `logger.info({ req })` cannot
 * leak one. An error's `code` (ECONNREFUSED, a provider's error code) is what makes a failure understandable,
 * so codes are redacted only where a request's parameters or body would carry an authorization or
 * verification code, never as `*.code`.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.subjectToken',
  '*.subject_token',
  '*.actor_token',
  '*.signingKey',
  '*.code_verifier',
  '*.verificationCode',
  'body.code',
  'params.code',
  'query.code',
  'input.code',
  'req.body.code',
  'req.query.code',
];

/** Structured JSON logs at one of the levels the configuration accepts (`LOG_LEVEL`). */
export function createLogger(level: Environment['LOG_LEVEL']): Logger {
  return pino({
    level,
    base: { service: 'identity-service' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}

export type { Logger };
