import type { Context, Middleware } from 'koa';
import { errors as oidcErrors } from 'oidc-provider';
import type { Logger } from 'pino';
import { DomainError, RateLimitedError, errors, type ErrorKind } from '../errors.ts';
import { isDependencyFailure } from './dependency-errors.ts';
import { requestLogger } from './request-id.ts';
import { messagePage } from './html.ts';
import { setPageHeaders } from './page-security.ts';

/** The edge: the one place where a kind of failure becomes an HTTP status. */
const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported: 415,
  rule: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
};

export function httpStatusOf(error: DomainError): number {
  return STATUS[error.kind];
}

/** Tells a rate-limited client when to come back. */
function setRetryAfter(ctx: Context, error: DomainError): void {
  if (error instanceof RateLimitedError && error.retryAfterSeconds !== undefined) {
    ctx.set('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  }
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
}

/** What body parsers and routers throw (http-errors with a 4xx status), as domain errors. */
function fromHttpError(error: unknown): DomainError | undefined {
  const http = error as HttpLikeError | null;
  const status = http?.status ?? http?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413 || http?.type === 'entity.too.large') return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType();
  if (status === 404) return errors.routeNotFound();
  if (status === 405) return errors.methodNotAllowed();
  if (http?.type === 'entity.parse.failed' || status === 400) return errors.invalidJson();
  return errors.invalidRequest();
}

/**
 * Any thrown value as a domain error. Backing-store outages become `service.dependency_unavailable`, anything
 * unexpected `service.internal_error`; both are logged at error level with the error, the method and the path
 * (never the query string or the body, which may carry credentials).
 */
function toDomainError(error: unknown, ctx: Context, serviceLogger: Logger): DomainError {
  if (error instanceof DomainError) return error;
  const logger = requestLogger(ctx, serviceLogger);
  const known = fromHttpError(error);
  if (known) return known;
  const where = { err: error, method: ctx.method, path: ctx.path };
  if (isDependencyFailure(error)) {
    logger.error(where, 'a backing store is unavailable');
    return errors.dependencyDown('a backing store');
  }
  logger.error(where, 'unhandled error');
  return errors.internal();
}

/** The management API's errors: `{ code, message, data? }` with the status of the code's kind. */
export function jsonErrorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const domainError = toDomainError(error, ctx, logger);
      ctx.status = httpStatusOf(domainError);
      setRetryAfter(ctx, domainError);
      ctx.body = domainError.toJSON();
    }
  };
}

/** Titles and wording of the sign-in pages' error pages; messages of domain errors are shown as they are. */
function pageOf(error: unknown, domainError: DomainError): { title: string; message: string } {
  if (domainError.kind === 'unavailable') {
    return {
      title: 'Temporarily unavailable',
      message: 'The sign-in service cannot complete this right now. Try again in a moment.',
    };
  }
  if (domainError.kind === 'internal') {
    return { title: 'Something went wrong', message: 'The sign-in could not be completed. Try again later.' };
  }
  return {
    title: 'Form not accepted',
    message: error instanceof DomainError ? error.message : 'The form could not be read.',
  };
}

/**
 * The sign-in pages' errors, as HTML pages with the pages' security headers: an unknown or expired
 * interaction (no cookie, stale uid) is the browser's problem and says so; the rest as on the API.
 */
export function htmlErrorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let status: number;
      let page: { title: string; message: string };
      if (error instanceof oidcErrors.SessionNotFound) {
        status = 400;
        page = {
          title: 'Sign-in expired',
          message: 'This sign-in has expired. Go back to the application and start again.',
        };
      } else {
        const domainError = toDomainError(error, ctx, logger);
        status = httpStatusOf(domainError);
        setRetryAfter(ctx, domainError);
        page = pageOf(error, domainError);
      }
      ctx.status = status;
      ctx.type = 'html';
      ctx.body = messagePage(page.title, page.message);
      setPageHeaders(ctx, { formTargets: [] });
    }
  };
}
