import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { errors } from '../errors.ts';
import { createDestinationPolicy, parseNetworks, pinnedLookup, type Network, type Resolver } from '../webhooks/destinations.ts';

/** The options of a request to an upstream, as openid-client hands them to a custom fetch. */
export interface OutboundInit {
  method: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | ReadableStream | null;
  signal?: AbortSignal;
}

export type OutboundFetch = (url: string, init: OutboundInit) => Promise<Response>;

/** An upstream's answer is read up to this size (discovery documents, JWKS, tokens and profiles are far smaller). */
const RESPONSE_LIMIT = 1024 * 1024;
const TIMEOUT_MS = 10_000;
const LOOPBACK: readonly Network[] = parseNetworks('127.0.0.0/8,::1/128');

const isLoopbackHost = (hostname: string) => {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
};

/**
 * Why an upstream URL is refused as configuration: it must be absolute https, or http on a loopback host (a
 * development identity provider on the same machine). Undefined when it is acceptable.
 */
export function upstreamUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must use https (http only on a loopback host)';
}

/**
 * How the service reaches social and enterprise identity providers: the same destination policy as webhooks,
 * applied to the resolved address at request time with the connection pinned to it. Public addresses are
 * reachable, and loopback (a provider on the same machine, over http too); other non-public addresses only
 * when listed in WEBHOOK_ALLOWED_NETWORKS. Redirects are not followed; each request has a 10 s limit and
 * reads at most 1 MiB.
 */
export function createOutboundFetch(options: { allowedNetworks?: readonly Network[]; resolve?: Resolver } = {}): OutboundFetch {
  const policy = createDestinationPolicy({ allowedNetworks: [...LOOPBACK, ...(options.allowedNetworks ?? [])], resolve: options.resolve });

  return async (target, init) => {
    const problem = upstreamUrlProblem(target);
    if (problem) throw errors.connector('connector.upstream_unreachable', `the upstream URL ${problem}`);
    const url = new URL(target);
    let verdict: Awaited<ReturnType<typeof policy.check>>;
    try {
      verdict = await policy.check(url.hostname);
    } catch {
      throw errors.connector('connector.upstream_unreachable', `the upstream host ${url.hostname} does not resolve`);
    }
    if ('refused' in verdict) throw errors.connector('connector.upstream_unreachable', verdict.refused);
    const body = await bodyBytes(init.body);
    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const headers = { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
      const request = send(url, { method: init.method, headers, lookup: pinnedLookup(verdict.addresses), timeout: TIMEOUT_MS }, (res) => {
        collect(res).then((bytes) => resolve(new Response(nullBodyStatus(res.statusCode) ? null : bytes, {
          status: res.statusCode ?? 502, headers: responseHeaders(res),
        })), reject);
      });
      const unreachable = (why: string) => reject(errors.connector('connector.upstream_unreachable', `the upstream ${url.host} ${why}`));
      request.on('timeout', () => {
        request.destroy();
        unreachable('did not answer in time');
      });
      request.on('error', (error) => unreachable(`could not be reached (${error.message})`));
      init.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')), { once: true });
      request.end(body);
    });
  };
}

const nullBodyStatus = (status: number | undefined) => status === 204 || status === 304;

async function bodyBytes(body: OutboundInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer || body instanceof Uint8Array) return Buffer.from(body as Uint8Array);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function collect(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > RESPONSE_LIMIT) {
        res.destroy();
        reject(errors.connector('connector.invalid_response', 'the upstream answered more than 1 MiB'));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', () => reject(errors.connector('connector.upstream_unreachable', 'the upstream connection failed mid-answer')));
  });
}
