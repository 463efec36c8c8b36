import { DuplicateKeyError } from './ports/documents.ts';

/**
 * Management and Experience API errors: `{ code, message, data? }` with a stable `code` clients switch on.
 * Route code throws these through the named factories below; one middleware renders them.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: unknown;
  constructor(status: number, code: string, message: string, data?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: string; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const errors = {
  invalidInput: (message: string, data?: unknown) => new ApiError(400, 'guard.invalid_input', message, data),
  invalidJson: () => new ApiError(400, 'guard.invalid_json', 'request body is not valid JSON'),
  payloadTooLarge: () => new ApiError(413, 'guard.payload_too_large', 'request body is too large'),
  unsupportedMediaType: () => new ApiError(415, 'guard.unsupported_media_type', 'request body must be application/json'),
  invalidBodyEncoding: () => new ApiError(400, 'guard.invalid_body_encoding', 'request body does not decode with its Content-Encoding'),
  unsupportedContentEncoding: (coding: string) => new ApiError(415, 'guard.unsupported_content_encoding',
    `Content-Encoding ${coding.slice(0, 64)} is not supported; send gzip, deflate, br or no encoding`),
  unauthorized: (message = 'a valid bearer token is required') => new ApiError(401, 'auth.unauthorized', message),
  forbidden: (scope: string) =>
    new ApiError(403, 'auth.forbidden', `the token lacks the scope required here: ${scope}`, { requiredScope: scope }),
  notFound: (entity: string, id?: string) =>
    new ApiError(404, 'entity.not_found', id ? `${entity} ${id} not found` : `${entity} not found`, { entity }),
  routeNotFound: () => new ApiError(404, 'route.not_found', 'no such route'),
  methodNotAllowed: () => new ApiError(405, 'route.method_not_allowed', 'method not allowed on this route'),
  duplicate: (entity: string, field: string) =>
    new ApiError(409, 'entity.unique_integrity_violation', `${entity} with this ${field} already exists`, { entity, field }),
  unprocessable: (code: string, message: string, data?: unknown) => new ApiError(422, code, message, data),
  rateLimited: (code: string, message: string) => new ApiError(429, code, message),
  dependencyDown: (what: string) => new ApiError(503, 'service.dependency_unavailable', `${what} is unavailable`),
  internal: () => new ApiError(500, 'service.internal_error', 'internal error'),
};

/**
 * Runs a write and turns a unique-index violation into a 409 naming the field: the given one, or with
 * `null` (several unique fields) the first field of the violated index.
 */
export async function unique<T>(entity: string, field: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateKeyError) {
      throw errors.duplicate(entity, field ?? Object.keys(error.keyPattern)[0] ?? 'identifier');
    }
    throw error;
  }
}

/** Throws the 404 naming every id of `wanted` that is not in `found`. */
export function assertAllFound(entity: string, wanted: readonly string[], found: ReadonlyArray<{ id: string }>): void {
  const present = new Set(found.map((item) => item.id));
  const missing = [...new Set(wanted)].filter((id) => !present.has(id));
  if (missing.length) throw errors.notFound(entity, missing.join(', '));
}
