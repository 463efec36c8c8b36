import { forgetSession, currentSession } from './auth.ts';
import { servicePath } from './config.ts';

/** One problem the API named in a request: `path` is like `body.oidcClientMetadata.redirectUris.0`. */
export interface Issue {
  path: string;
  message: string;
}

/** An answer of the management API that is not a success: its stable `code`, message and details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: unknown;

  constructor(status: number, code: string, message: string, data?: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }

  get issues(): Issue[] {
    const issues = (this.data as { issues?: unknown } | undefined)?.issues;
    return Array.isArray(issues) ? (issues as Issue[]) : [];
  }

  /**
   * What the API said about one field of the body (`name`, `oidcClientMetadata.redirectUris`), including its
   * items; undefined when it said nothing about it.
   */
  fieldError(field: string): string | undefined {
    const path = `body.${field}`;
    const messages = this.issues
      .filter((issue) => issue.path === path || issue.path.startsWith(`${path}.`))
      .map((issue) => {
        const item = issue.path.slice(path.length + 1);
        return /^\d+$/.test(item) ? `line ${Number(item) + 1}: ${issue.message}` : issue.message;
      });
    return messages.length ? messages.join('; ') : undefined;
  }

  /** Whether a field of the form showed this error, so the action need not repeat it. */
  isAboutFields(fields: readonly string[]): boolean {
    return (
      this.issues.length > 0 &&
      this.issues.every((issue) =>
        fields.some((field) => issue.path === `body.${field}` || issue.path.startsWith(`body.${field}.`)),
      )
    );
  }
}

type Listener = () => void;
const expiredListeners = new Set<Listener>();
/** Called when the API refuses the console's token (expired or revoked): the app asks to sign in again. */
export function onSessionExpired(listener: Listener): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
}

async function request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const session = currentSession();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session) headers.authorization = `Bearer ${session.accessToken}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(options.query ?? {}))
    if (value !== undefined && value !== '') query.set(key, String(value));
  const url = `${servicePath}/api${path}${query.size ? `?${query}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(0, 'network', 'The service could not be reached. Check your connection and try again.');
  }
  if (res.ok) return res;
  const text = await res.text();
  let body: { code?: string; message?: string; data?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not the API's JSON (a proxy's page): the status says enough.
  }
  if (res.status === 401) {
    forgetSession();
    for (const listener of expiredListeners) listener();
  }
  throw new ApiError(
    res.status,
    body.code ?? `http.${res.status}`,
    body.message ?? `The service answered ${res.status}.`,
    body.data,
  );
}

/** Calls the management API; resolves to the JSON body (undefined for 204), rejects with an ApiError. */
export async function api<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  const res = await request(method, path, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A page of a list, with the `Total-Number` the API counts. */
export async function apiList<T>(
  path: string,
  query: RequestOptions['query'] = {},
): Promise<{ items: T[]; total: number }> {
  const res = await request('GET', path, { query });
  const items = (await res.json()) as T[];
  return { items, total: Number(res.headers.get('Total-Number') ?? items.length) };
}

/** Logto's search pattern for "contains this text": `%` and `_` typed by the user match themselves. */
export const containing = (text: string) => (text ? `%${text.replace(/[\\%_]/g, '\\$&')}%` : undefined);
