import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors.ts';
import { isDependencyFailure } from './dependency-errors.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/** Maps what body parsers and routers throw onto stable API errors. */
function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const http = error as HttpLikeError | null;
  const status = http?.status ?? http?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413 || http?.type === 'entity.too.large') return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType();
  if (status === 404) return errors.routeNotFound();
  if (status === 405) return errors.methodNotAllowed();
  if (http?.type === 'entity.parse.failed' || status === 400) return errors.invalidJson();
  return new ApiError(status, 'request.invalid', 'the request could not be processed');
}

/** Renders `{ code, message, data? }`; anything unexpected is logged and becomes an opaque 500. */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let apiError = toApiError(error);
      if (!apiError && isDependencyFailure(error)) {
        logger.warn({ err: error, path: ctx.path }, 'a backing store is unavailable');
        apiError = errors.dependencyDown('a backing store');
      }
      if (!apiError) {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
        apiError = errors.internal();
      }
      ctx.status = apiError.status;
      ctx.body = apiError.toJSON();
    }
  };
}
