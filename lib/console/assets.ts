import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { escapeHtml, messagePage } from '../http/html.ts';
import { setDocumentHeaders } from '../http/page-security.ts';

/**
 * The package root holds `console/dist/`, what `npm run build:console` (run by `npm install`) writes: two levels
 * above this file in a checkout, three above its compiled copy in `dist/lib/console/`.
 */
const BUNDLE_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.js') ? '../../../console/dist/' : '../../console/dist/', import.meta.url),
);

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** What the bundler wrote: the entry script and stylesheet of each page, and every file, content-hashed. */
interface Manifest {
  entries: Record<string, { script: string; styles: string[] }>;
  files: string[];
}

interface Asset {
  body: Buffer;
  type: string;
}

export interface ConsoleBundle {
  entries: Manifest['entries'];
  assets: Map<string, Asset>;
}

/** Reads the built bundle into memory (it is small), or undefined when it was never built. */
export function loadConsoleBundle(logger: Logger, dir = BUNDLE_DIR): ConsoleBundle | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    logger.warn('the console is not built (console/dist/manifest.json is missing): run `npm run build:console`');
    return undefined;
  }
  const assets = new Map<string, Asset>();
  for (const file of manifest.files) {
    assets.set(file, {
      body: readFileSync(join(dir, file)),
      type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    });
  }
  return { entries: manifest.entries, assets };
}

export interface PageSecurity {
  /** Extra `style-src` sources (a page whose renderer needs them says why where it asks). */
  styleSources?: string[];
  /** `worker-src` sources; none by default. */
  workerSources?: string[];
}

/**
 * Headers of a page of the bundle: scripts and styles only from the service's own files (no inline code at all),
 * API calls only to the service, no framing, no referrer.
 */
export function setBundlePageHeaders(ctx: Context, security: PageSecurity = {}): void {
  const directives = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${["'self'", ...(security.styleSources ?? [])].join(' ')}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    ...(security.workerSources?.length ? [`worker-src ${security.workerSources.join(' ')}`] : []),
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ];
  setDocumentHeaders(ctx, directives);
  // The page changes with every build and carries the configuration: never reused from a cache.
  ctx.set('Cache-Control', 'no-store');
}

/**
 * The HTML shell of one bundle entry: its stylesheet and module script by their hashed names, and the settings the
 * script reads from a `<meta>` element (no inline script, so the CSP needs none).
 */
export function bundlePage(options: {
  bundle: ConsoleBundle;
  entry: string;
  assetsUrl: string;
  title: string;
  config: Record<string, unknown>;
}): string {
  const entry = options.bundle.entries[options.entry];
  if (!entry) throw new Error(`the console bundle has no entry ${options.entry}`);
  const url = (file: string) => escapeHtml(`${options.assetsUrl}/${file.replace(/^assets\//, '')}`);
  const styles = entry.styles.map((file) => `<link rel="stylesheet" href="${url(file)}">`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)}</title><link rel="icon" href="data:,">
<meta name="app-config" content="${escapeHtml(JSON.stringify(options.config))}">
${styles}<script type="module" src="${url(entry.script)}"></script></head>
<body><div id="app"></div><noscript>This page needs JavaScript.</noscript></body></html>`;
}

/**
 * Serves `/<prefix>/assets/<hashed name>` from the bundle: immutable for a year, since a changed file gets a new
 * name. Anything else under the assets path is 404.
 */
export function serveAssets(bundle: ConsoleBundle | undefined, assetsPath: string): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${assetsPath}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    const asset = bundle?.assets.get(`assets/${ctx.path.slice(assetsPath.length + 1)}`);
    if (!asset) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'not found';
      return;
    }
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}

/** The page served when the bundle was never built: says how to build it. */
export function unbuiltPage(ctx: Context): void {
  ctx.status = 503;
  ctx.type = 'html';
  ctx.body = messagePage(
    'Console not built',
    'The console bundle is missing. Run `npm run build:console` (npm install runs it) and restart.',
  );
}
