import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { errors } from '../errors.ts';
import type { Page, PageResult, Search } from '../data/entity.ts';
import { takeSearch } from './search.ts';

/**
 * Declarative routes: each one names its schemas once; the same declaration validates requests, sends only
 * what the response schema lets through, and feeds the OpenAPI document. Route modules read as a pipeline:
 * authenticate (scope) → validate → handle → present.
 */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteDeclaration<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: Method;
  /** koa-router path relative to the router's prefix, e.g. `/applications/:id`. */
  path: string;
  summary: string;
  tag: string;
  /** Management scope required; `all` always suffices. `null` for routes with their own authentication. */
  scope?: string | null;
  /**
   * For the OpenAPI document, how a route with `scope: null` authenticates its callers itself: `resourceServer`, HTTP
   * Basic as an application that serves an API (as at introspection). Without it, such a route is documented open.
   */
  ownAuthentication?: 'resourceServer';
  params?: P;
  query?: Q;
  /**
   * The fields Logto's search parameters (`search`, `search.<field>`, `mode…`, `joint`, `isCaseSensitive`)
   * may name; they reach the handler parsed as `search`, and the query schema sees the other parameters.
   */
  search?: readonly string[];
  /**
   * `optional`: without `page` and `page_size` the list answers every row (up to `UNPAGED_LIMIT`), as Logto's
   * optionally paginated lists do.
   */
  pagination?: 'optional';
  body?: B;
  /** An update whose body names nothing to change answers 422 `entity.invalid_input`, as Logto's do. */
  refuseEmptyBody?: boolean;
  /** Successful status (default 200; 201 for creation; 204 without a body). */
  status?: number;
  /**
   * `false`: the request runs outside a transaction. Only for a static path whose handler writes at most one
   * document, after anything else it stores, and whose route publishes no events: there is nothing to commit
   * together, and on MongoDB a transaction costs round trips of its own.
   */
  transaction?: false;
  /** A second success status, without a body, the handler may choose with `answer` (e.g. 201 when a call created). */
  alternativeStatus?: number;
  /** The alternative status sends the same body as `status` (Logto's 201 for a first `PUT`, 200 afterwards). */
  alternativeWithBody?: boolean;
  /**
   * The body's contract, required unless the status is 204: every response is parsed through it and the
   * parsed value is sent, so fields the schema does not name (a secret a repository forgot to hide) are
   * dropped. Object schemas must strip unknown keys (zod's default), not pass them through.
   */
  response?: z.ZodType;
  handler: (ctx: ApiContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>;
}

export interface ApiContext<P, Q, B> {
  params: P;
  query: Q;
  /** The parsed search parameters, when the route declares search fields and the query has a search value. */
  search: Search | undefined;
  body: B;
  koa: Context;
  /** Sets a response header. */
  header(name: string, value: string): void;
  /** Answers with the route's `alternativeStatus` (and no body, unless `alternativeWithBody`) instead of its `status`. */
  answer(status: number): void;
  /** The query's `page` / `page_size` as a repository page (first page of 20 when the route has none). */
  page: Page;
  /**
   * Answers one page of a list: `Total-Number` is the total, the body the items. A whole array (a list
   * computed in full) is cut to the requested page.
   */
  paged<T>(result: PageResult<T> | T[]): T[];
}

export interface RegisteredRoute {
  method: Method;
  /** Full path including the router prefix, koa-router syntax. */
  path: string;
  summary: string;
  tag: string;
  scope: string | null;
  /** The OpenAPI security scheme the scope belongs to (`bearer` unless the router says otherwise). */
  security?: SecurityScheme;
  /** How a route without a scope authenticates its callers itself, if it does. */
  ownAuthentication?: 'resourceServer';
  params?: z.ZodType;
  query?: z.ZodType;
  search?: readonly string[];
  body?: z.ZodType;
  status: number;
  alternativeStatus?: number;
  alternativeWithBody?: boolean;
  response?: z.ZodType;
  transaction?: false;
}

/** Collects route declarations of one service instance (for OpenAPI and the route→event coverage test). */
export class RouteRegistry {
  readonly routes: RegisteredRoute[] = [];
  /** `METHOD /full/path` of the routes declared `transaction: false`. */
  readonly #untransacted = new Set<string>();

  withoutTransaction(method: Method, path: string): void {
    this.#untransacted.add(`${method.toUpperCase()} ${path}`);
  }

  /** Whether a request is for a route declared without a transaction (exactly its path, as declared). */
  needsNoTransaction(ctx: Context): boolean {
    return this.#untransacted.size > 0 && this.#untransacted.has(`${ctx.method} ${ctx.path}`);
  }
}

export type ScopeGuard = (scope: string) => Middleware;

/** `bearer`: management tokens (client credentials); `user`: an end user's own access token (Account API). */
export type SecurityScheme = 'bearer' | 'user';

export interface ApiRouterDeps {
  router: Router;
  prefix: string;
  registry: RouteRegistry;
  requireScope: ScopeGuard;
  /** Whose tokens `requireScope` checks, for the OpenAPI document; `bearer` when not given. */
  security?: SecurityScheme;
}

function parseOrThrow<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.infer<T> {
  if (!schema) return value as z.infer<T>;
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
    }));
    throw errors.invalidInput(`invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
      issues,
    });
  }
  return result.data;
}

/**
 * Thrown when a handler's result does not match its response schema: a bug, never the client's fault. The
 * API's error middleware logs it at error level and answers 500 `service.internal_error`, in every
 * environment: an unchecked body is never sent. The message names the route and the failing paths, not the
 * values, which may be secret.
 */
export class ResponseContractError extends Error {
  constructor(route: string, issues: z.core.$ZodIssue[]) {
    const where = issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
    super(`the response of ${route} does not match its schema: ${where}`);
    this.name = 'ResponseContractError';
  }
}

function present(schema: z.ZodType, value: unknown, route: string): unknown {
  const result = schema.safeParse(value);
  if (!result.success) throw new ResponseContractError(route, result.error.issues);
  return result.data;
}

/** Declares a route on a koa-router with validation and registers it for documentation. */
export function declare<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  deps: ApiRouterDeps,
  route: RouteDeclaration<P, Q, B>,
): void {
  const scope = route.scope === undefined ? 'all' : route.scope;
  const status = route.status ?? 200;
  const name = `${route.method.toUpperCase()} ${deps.prefix}${route.path}`;
  const response = route.response;
  if (status !== 204 && !response)
    throw new Error(`${name} answers ${status} with a body but declares no response schema`);
  if (route.transaction === false) {
    if (route.path.includes(':')) throw new Error(`${name}: only a static path can run without a transaction`);
    deps.registry.withoutTransaction(route.method, `${deps.prefix}${route.path}`);
  }
  deps.registry.routes.push({
    method: route.method,
    path: `${deps.prefix}${route.path}`,
    summary: route.summary,
    tag: route.tag,
    scope,
    security: deps.security,
    ownAuthentication: route.ownAuthentication,
    params: route.params,
    query: route.query,
    search: route.search,
    body: route.body,
    status,
    alternativeStatus: route.alternativeStatus,
    alternativeWithBody: route.alternativeWithBody,
    response: route.response,
    transaction: route.transaction,
  });
  const middlewares: Middleware[] = [];
  if (scope) middlewares.push(deps.requireScope(scope));
  middlewares.push(async (ctx) => {
    const params = parseOrThrow(route.params, ctx.params, 'params');
    const { search, rest } = route.search
      ? takeSearch(ctx.query, route.search)
      : { search: undefined, rest: ctx.query };
    const query = parseOrThrow(route.query, rest, 'query');
    const body = parseOrThrow(route.body, route.body ? (ctx.request as { body?: unknown }).body : undefined, 'body');
    if (route.refuseEmptyBody && isEmptyObject(body)) {
      throw errors.unprocessable('entity.invalid_input', 'the request names nothing to update');
    }
    const page = pageOf(query, route.pagination === 'optional');
    let answered = status;
    const result = await route.handler({
      params,
      query,
      search,
      body,
      koa: ctx,
      page,
      header: (name, value) => ctx.set(name, value),
      answer(other) {
        if (other !== route.alternativeStatus) throw new Error(`${name} declares no alternative status ${other}`);
        answered = other;
      },
      paged: (list) => {
        const { items, total } = Array.isArray(list)
          ? { items: list.slice((page.page - 1) * page.pageSize, page.page * page.pageSize), total: list.length }
          : list;
        ctx.set('Total-Number', String(total));
        return items;
      },
    });
    if (answered !== status && !route.alternativeWithBody) ctx.body = null;
    else if (status !== 204 && response) ctx.body = present(response, result, name);
    ctx.status = answered;
  });
  deps.router[route.method](route.path, ...middlewares);
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** The most rows an optionally paginated list answers when the client asks for no page. */
export const UNPAGED_LIMIT = 1000;

function pageOf(query: unknown, optional: boolean): Page {
  const { page, page_size: pageSize } = (query ?? {}) as { page?: unknown; page_size?: unknown };
  const unpaged = optional && page === undefined && pageSize === undefined;
  return {
    page: typeof page === 'number' ? page : 1,
    pageSize: typeof pageSize === 'number' ? pageSize : unpaged ? UNPAGED_LIMIT : 20,
  };
}

/**
 * `page` / `page_size` as Logto takes them. Strict, as every list query extending it: a parameter the route
 * does not take is a 400 naming it, never silently ignored.
 */
export const pagination = z
  .object({
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

/** `page` / `page_size` for lists that answer every row without them (`pagination: 'optional'`). */
export const optionalPagination = z
  .object({
    page: z.coerce.number().int().min(1).max(100_000).optional(),
    page_size: z.coerce.number().int().min(1).max(100).optional(),
  })
  .strict();

/** Any id-like path segment. */
export const idParam = z.string().min(1).max(128);

type Matches = ReturnType<Router['match']>;

/**
 * koa-router tests every route's pattern against every request's path. The result for a path that only static
 * routes (no parameters) matched is remembered per method, for at most `limit` paths, and forgotten whenever a
 * route is added; a path with parameters, or one no route serves, is matched as before.
 */
export function rememberStaticMatches(router: Router, limit = 512): void {
  const match = router.match.bind(router);
  const remembered = new Map<string, Matches>();
  let layers = router.stack.length;
  router.match = (path, method) => {
    if (router.stack.length !== layers) {
      remembered.clear();
      layers = router.stack.length;
    }
    const key = `${method} ${path}`;
    const known = remembered.get(key);
    // Copies: the router hands the lists to the request, which may add to them.
    if (known) return { path: [...known.path], pathAndMethod: [...known.pathAndMethod], route: known.route };
    const result = match(path, method);
    if (result.route && remembered.size < limit && result.path.every((layer) => layer.paramNames.length === 0)) {
      remembered.set(key, { path: [...result.path], pathAndMethod: [...result.pathAndMethod], route: result.route });
    }
    return result;
  };
}
