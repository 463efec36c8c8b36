import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export { eventually } from '../wait.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** How an endpoint answers its nth request (1-based); `'hang'` never answers. */
export type Script = (nth: number, request: ReceivedRequest) => Reply | 'hang' | Promise<Reply>;

const OK: Script = () => ({ status: 200, body: 'ok' });

/** A real HTTP endpoint for webhooks: scripted answers per path, every request recorded. */
export class Receiver {
  readonly #server: Server;
  readonly #scripts = new Map<string, Script>();
  readonly #received: ReceivedRequest[] = [];
  #base = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        this.#received.push(request);
        const nth = this.#received.filter((r) => r.path === request.path).length;
        void Promise.resolve((this.#scripts.get(request.path) ?? OK)(nth, request)).then((reply) => {
          if (reply !== 'hang' && !res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
        });
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    receiver.#base = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
    return receiver;
  }

  url(path: string): string {
    return this.#base + path;
  }

  script(path: string, script: Script): void {
    this.#scripts.set(path, script);
  }

  requests(path?: string): ReceivedRequest[] {
    return path === undefined ? [...this.#received] : this.#received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Answers `codes` in order, then 200 for ever. */
export function sequence(...codes: number[]): Script {
  return (nth) => ({ status: codes[nth - 1] ?? 200, body: `reply ${nth}` });
}

/** A loopback URL where nothing listens (a port just released), for connection-refused cases. */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/refused`;
}
