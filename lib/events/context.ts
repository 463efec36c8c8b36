import type { Context } from 'koa';
import type { ManagementContext } from './payloads.ts';

/** The request a management event happened in, as Logto reports it: paths relative to the API prefix. */
export function managementContext(ctx: Context, prefix: string, matchedRoute: string): ManagementContext {
  const path = ctx.path.startsWith(prefix) ? ctx.path.slice(prefix.length) : ctx.path;
  return {
    ip: ctx.ip,
    userAgent: ctx.get('user-agent') || undefined,
    path,
    method: ctx.method,
    status: ctx.status,
    params: { ...ctx.params },
    matchedRoute,
  };
}
