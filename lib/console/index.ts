import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { setPageHeaders } from '../http/page-security.ts';
import { when } from '../http/when.ts';
import type { Settings } from '../settings.ts';
import { CONSOLE_APPLICATION_ID, consoleUrls } from './application.ts';
import { bundlePage, serveAssets, setBundlePageHeaders, unbuiltPage, type ConsoleBundle } from './assets.ts';
import type { ConsoleAdmins } from './admins.ts';
import { isDependencyFailure } from '../http/dependency-errors.ts';
import { reasonOf } from '../store-unavailable.ts';

const CONSOLE_PATH = '/console';
/** The API reference page: the OpenAPI document (`/api/swagger.json`) rendered by Redoc. */
const DOCS_PATH = '/api/docs';

/**
 * Start-up for the console: the configured admin is (re)applied; without one, while no admin exists, a one-time
 * setup link is printed (each start prints a fresh one; its token travels in the fragment, never to a server log).
 */
export async function prepareConsoleAdmins(options: {
  admins: ConsoleAdmins;
  settings: Pick<Settings, 'ADMIN_USERNAME' | 'ADMIN_PASSWORD' | 'baseUrl'>;
  print: (text: string) => void;
  logger: Logger;
}): Promise<void> {
  const { admins, settings } = options;
  if (settings.ADMIN_USERNAME && settings.ADMIN_PASSWORD) {
    await admins.applyConfigured(settings.ADMIN_USERNAME, settings.ADMIN_PASSWORD);
    return;
  }
  let token: string | undefined;
  try {
    token = await admins.openSetup();
  } catch (error) {
    // The service starts with its key-value store down (and answers 503 until it is back); the link waits for a restart.
    const detail = isDependencyFailure(error) ? { reason: reasonOf(error) } : { err: error };
    options.logger.warn(detail, 'no console setup link: the key-value store is unavailable; restart once it is back');
    return;
  }
  if (!token) return;
  options.print(
    `No console admin yet. Choose one within 24 hours at this one-time link:\n  ${consoleUrls(settings.baseUrl).home}/setup#token=${token}\n`,
  );
  options.logger.info('console setup link printed (no console admin exists)');
}

/**
 * Serves the console at `/console`: its hashed assets under `/console/assets/`, and for every other path below it
 * the page shell, which the single-page application routes itself; and the API reference page at `/api/docs`.
 */
export function consoleMiddleware(options: { bundle: ConsoleBundle | undefined; settings: Settings }): Middleware {
  const { bundle, settings } = options;
  const basePath = new URL(settings.baseUrl).pathname.replace(/\/+$/, '');
  const assets = serveAssets(bundle, `${CONSOLE_PATH}/assets`);
  const config = {
    baseUrl: settings.baseUrl,
    clientId: CONSOLE_APPLICATION_ID,
    managementApi: settings.managementIndicator,
    ...consoleUrls(settings.baseUrl),
  };
  const assetsUrl = `${basePath}${CONSOLE_PATH}/assets`;
  const serve: Middleware = async (ctx, next) => {
    if (ctx.path === DOCS_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      if (!bundle) {
        setPageHeaders(ctx, { formTargets: [] });
        unbuiltPage(ctx);
        return;
      }
      // Redoc's styles are <style> elements, allowed by a nonce fresh for each page; its search index is built in a
      // worker it starts from a blob: URL of its own code, which only this page's scripts can create.
      const styleNonce = randomBytes(16).toString('base64');
      setBundlePageHeaders(ctx, { styleSources: [`'nonce-${styleNonce}'`], workerSources: ['blob:'] });
      ctx.type = 'html';
      ctx.body = bundlePage({
        bundle,
        entry: 'api-docs',
        assetsUrl,
        title: 'API reference',
        config: { specUrl: `${basePath}/api/swagger.json`, consoleUrl: `${basePath}${CONSOLE_PATH}`, styleNonce },
      });
      return;
    }
    if (ctx.path !== CONSOLE_PATH && !ctx.path.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (ctx.path.startsWith(`${CONSOLE_PATH}/assets/`)) return assets(ctx, next);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    if (!bundle) {
      setPageHeaders(ctx, { formTargets: [] });
      unbuiltPage(ctx);
      return;
    }
    // The code editor writes its theme into a <style> element: allowed by a nonce fresh for each page, never by
    // 'unsafe-inline'. The page (never cached) hands the nonce to the script in its configuration.
    const styleNonce = randomBytes(16).toString('base64');
    setBundlePageHeaders(ctx, { styleSources: [`'nonce-${styleNonce}'`] });
    ctx.type = 'html';
    ctx.body = bundlePage({
      bundle,
      entry: 'console',
      assetsUrl,
      title: 'Console',
      config: { ...config, styleNonce },
    });
  };
  return when(
    (ctx) => ctx.path === DOCS_PATH || ctx.path === CONSOLE_PATH || ctx.path.startsWith(`${CONSOLE_PATH}/`),
    serve,
  );
}
