import LogtoClient, { type LogtoConfig } from '@logto/node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AppPages {
  /** `http://127.0.0.1:<port>`: where the app's redirect URIs and assets live. */
  origin: string;
  close(): Promise<void>;
}

/** A client application's own pages (its callback, its signed-out page, its assets) on a loopback port. */
export async function startAppPages(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<AppPages> {
  const server: Server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A page titled, and headed, `title`. */
export function titledPage(res: ServerResponse, title: string): void {
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html lang="en"><title>${title}</title><h1>${title}</h1></html>`);
}

/**
 * A server-side app's `@logto/node` client, unchanged: its session in memory, and the address it would redirect the
 * browser to kept for the test to open.
 */
export function logtoClient(config: LogtoConfig): { logto: LogtoClient; navigated(): string } {
  const storage = new Map<string, string>();
  let navigated = '';
  const logto = new LogtoClient(config, {
    storage: {
      getItem: async (key) => storage.get(key) ?? null,
      setItem: async (key, value) => void storage.set(key, value),
      removeItem: async (key) => void storage.delete(key),
    },
    navigate: (url) => {
      navigated = url;
    },
  });
  return { logto, navigated: () => navigated };
}
