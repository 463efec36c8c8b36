import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { pino } from 'pino';
import { createIdentityService, type IdentityService, type IdentityServiceOptions } from '../../app/index.ts';
import { tempDataDir } from './sqlite.ts';

export const ADMIN = { id: 'test-admin', secret: 'test-admin-secret-0123456789' };
export const LOOPBACK_NETWORKS = '127.0.0.0/8,::1/128';

export interface RunningService {
  service: IdentityService;
  server: Server;
  baseUrl: string;
  /** A management API bearer token with scope `all`. */
  adminToken(): Promise<string>;
  /** Fetch against the running server, with JSON helpers. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port first so that BASE_URL (and the issuer) are the real address. `publicHost`
 * names that address `localhost` instead (WebAuthn takes no IP address as a relying party's id).
 *
 * The instance runs on the production default, the SQLite store, in a data directory of its own (removed when it
 * closes). On Redis it keeps its documents in memory instead: a SQLite store beside a Redis holds that Redis's lease
 * for local documents, which test runs sharing one Redis would then dispute.
 */
export async function startService(
  options: IdentityServiceOptions & { env?: Record<string, string | undefined>; publicHost?: 'localhost' } = {},
): Promise<RunningService> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${options.publicHost ?? '127.0.0.1'}:${port}`;
  const dataDir = tempDataDir();
  const redisUrl = options.env && 'REDIS_URL' in options.env ? options.env.REDIS_URL : process.env.TEST_REDIS_URL;
  let service: IdentityService;
  try {
    service = await createIdentityService({
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      print: () => {},
      ...options,
      env: {
        BASE_URL: baseUrl,
        ADMIN_CLIENT_ID: ADMIN.id,
        ADMIN_CLIENT_SECRET: ADMIN.secret,
        REDIS_URL: process.env.TEST_REDIS_URL,
        DATA_DIR: dataDir,
        STORAGE: redisUrl ? (options.env?.MONGODB_URI ? undefined : 'memory') : 'sqlite',
        // Test receivers listen on loopback, which webhooks may reach only when allowed.
        WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
        // Every instance counts the same loopback address (and, on Redis, the same clients) together: off, unless a
        // test of those limits sets its own.
        AUTH_FAILURE_RATE_LIMIT: '0',
        SUBJECT_TOKEN_RATE_LIMIT: '0',
        MESSAGE_RATE_LIMIT_PER_IP: '0',
        ...options.env,
      },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    server.close();
    throw error;
  }
  server.on('request', service.app.callback());
  let cachedToken: string | undefined;

  const running: RunningService = {
    service,
    server,
    baseUrl,
    async adminToken() {
      cachedToken ??= await clientCredentialsToken(baseUrl, ADMIN.id, ADMIN.secret, `${baseUrl}/api`, 'all');
      return cachedToken;
    },
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      const token = init.token ?? (headers.has('authorization') ? undefined : await running.adminToken());
      if (token) headers.set('authorization', `Bearer ${token}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${baseUrl}${path}`, { ...init, headers, body });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return running;
}

/** A real OAuth client (openid-client) running the client-credentials grant. */
export async function clientCredentialsToken(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
  resource: string,
  scope: string,
): Promise<string> {
  const config = await client.discovery(new URL(`${baseUrl}/oidc`), clientId, clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const tokens = await client.clientCredentialsGrant(config, { resource, scope });
  return tokens.access_token;
}
