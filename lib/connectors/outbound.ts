import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { errors } from '../errors.ts';
import {
  createDestinationPolicy,
  parseNetworks,
  pinnedLookup,
  type DestinationPolicy,
  type Network,
  type ResolvedAddress,
  type Resolver,
} from '../webhooks/destinations.ts';

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

export interface OutboundOptions {
  /** Non-public networks the URLs an operator configured may be on, beyond loopback (WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks?: readonly Network[];
  /** Networks a non-public issuer's discovery document may name endpoints on, beyond its own origin. */
  endpointNetworks?: readonly Network[];
  /** The whole of one request, from resolving its host to the last byte of its answer, ms. */
  deadlineMs: number;
  resolve?: Resolver;
}

export interface Outbound {
  /** For URLs the operator configured (an issuer, explicit endpoints). */
  fetch: OutboundFetch;
  /** For the requests made through an issuer's discovery document: its endpoints may reach only where it could. */
  forIssuer(issuer: string): OutboundFetch;
  /** Why an endpoint an issuer's discovery document names is refused; undefined when it may be used. */
  endpointProblem(issuer: string, endpoint: string): Promise<string | undefined>;
}

const unreachable = (why: string) => errors.connector('connector.upstream_unreachable', why);

/**
 * How the service reaches social and enterprise identity providers: the same destination policy as webhooks,
 * applied to the resolved address at request time with the connection pinned to it.
 *
 * A URL the operator configured may be on a public address, on loopback (a provider on the same machine, over
 * http too), or on a non-public network listed in WEBHOOK_ALLOWED_NETWORKS. An endpoint that only an issuer's
 * discovery document names may reach no further than that issuer could: on the issuer's own origin it is judged
 * as the issuer is; elsewhere, for an issuer on a public address only a public address, and for an issuer on a
 * non-public one (an internal IdP) only a network listed in CONNECTOR_ENDPOINT_NETWORKS. So whoever runs an
 * identity provider cannot have the service send its codes, PKCE verifiers and client secrets into the internal
 * network.
 *
 * Redirects are not followed; each request has a total deadline (OUTBOUND_TIMEOUT_MS), so an upstream that
 * trickles its answer byte by byte is cut off as one that never answers; an answer is read up to 1 MiB.
 */
export function createOutbound(options: OutboundOptions): Outbound {
  const configured = createDestinationPolicy({
    allowedNetworks: [...LOOPBACK, ...(options.allowedNetworks ?? [])],
    resolve: options.resolve,
  });
  const publicOnly = createDestinationPolicy({ resolve: options.resolve });
  const endpointPolicy = createDestinationPolicy({
    allowedNetworks: options.endpointNetworks ?? [],
    resolve: options.resolve,
  });
  const listed = new BlockList();
  for (const { address, prefix, family } of options.endpointNetworks ?? []) listed.addSubnet(address, prefix, family);

  async function resolved(policy: DestinationPolicy, hostname: string) {
    try {
      return await policy.check(hostname);
    } catch {
      throw unreachable(`the upstream host ${hostname} does not resolve`);
    }
  }

  /** Where a discovered endpoint off the issuer's origin may connect to, or why it may not. */
  async function discoveredTarget(
    issuer: URL,
    endpoint: URL,
  ): Promise<{ addresses: ResolvedAddress[] } | { refused: string }> {
    const issuerIsPublic = !('refused' in (await resolved(publicOnly, issuer.hostname)));
    if (issuerIsPublic) {
      const verdict = await resolved(publicOnly, endpoint.hostname);
      return 'refused' in verdict
        ? {
            refused: `the discovery document of ${issuer.origin} names ${endpoint.origin}, which is not a public address`,
          }
        : verdict;
    }
    const verdict = await resolved(endpointPolicy, endpoint.hostname);
    const outside =
      'refused' in verdict ||
      verdict.addresses.some(({ address, family }) => !listed.check(address, family === 6 ? 'ipv6' : 'ipv4'));
    return outside
      ? {
          refused: `the discovery document of ${issuer.origin} (not a public address) names ${endpoint.origin}, another origin on no network listed in CONNECTOR_ENDPOINT_NETWORKS`,
        }
      : verdict;
  }

  async function target(
    url: URL,
    issuer: URL | undefined,
  ): Promise<{ addresses: ResolvedAddress[] } | { refused: string }> {
    if (issuer && issuer.origin !== url.origin) return discoveredTarget(issuer, url);
    return resolved(configured, url.hostname);
  }

  function fetcher(issuer: URL | undefined): OutboundFetch {
    return (text, init) =>
      withDeadline(
        options.deadlineMs,
        async (signal) => {
          const problem = upstreamUrlProblem(text);
          if (problem) throw unreachable(`the upstream URL ${problem}`);
          const url = new URL(text);
          const verdict = await target(url, issuer);
          if ('refused' in verdict) throw unreachable(verdict.refused);
          return send(url, init, verdict.addresses, signal);
        },
        init.signal,
      );
  }

  return {
    fetch: fetcher(undefined),
    forIssuer: (issuer) => fetcher(new URL(issuer)),
    async endpointProblem(issuer, endpoint) {
      const problem = upstreamUrlProblem(endpoint);
      if (problem) return `${endpoint.slice(0, 256)} ${problem}`;
      try {
        const verdict = await target(new URL(endpoint), new URL(issuer));
        return 'refused' in verdict ? verdict.refused : undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  };
}

/**
 * Runs `work` with a signal that aborts at the deadline or when the caller's signal does; at the deadline the
 * request is refused as unreachable whatever it was doing (resolving, connecting, or reading a slow answer).
 */
async function withDeadline<T>(
  deadlineMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  outer?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error('deadline'));
      reject(unreachable(`the upstream did not answer within ${deadlineMs} ms`));
    }, deadlineMs);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
    // Whatever is still under way (a request that lost the race) is stopped.
    controller.abort(new Error('done'));
  }
}

async function send(
  url: URL,
  init: OutboundInit,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
): Promise<Response> {
  const body = await bodyBytes(init.body);
  return new Promise<Response>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: init.method,
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        lookup: pinnedLookup(addresses),
        signal,
      },
      (res) => {
        collect(res).then(
          (bytes) =>
            resolve(
              new Response(nullBodyStatus(res.statusCode) ? null : bytes, {
                status: res.statusCode ?? 502,
                headers: responseHeaders(res),
              }),
            ),
          reject,
        );
      },
    );
    request.on('error', (error) =>
      reject(unreachable(`the upstream ${url.host} could not be reached (${error.message})`)),
    );
    request.end(body);
  });
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
    res.on('error', () =>
      reject(errors.connector('connector.upstream_unreachable', 'the upstream connection failed mid-answer')),
    );
  });
}
