import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { setBounded } from '../bounded-map.ts';
import { pinnedLookup, type DestinationPolicy, type ResolvedAddress } from './destinations.ts';

export interface SendInput {
  url: string;
  /** The exact JSON body (the signed bytes). */
  body: string;
  /** Headers the service sets (signatures); they win over `customHeaders`. */
  headers: Record<string, string>;
  /** Headers from the hook config. */
  customHeaders?: Record<string, string>;
  timeoutMs: number;
  userAgent: string;
  /** Connection pools to reuse; without them every request opens its own connection. */
  agents?: Pick<WebhookAgents, 'http' | 'https'>;
  /** Which addresses may be reached; the request goes to the address it checked. */
  destinations: DestinationPolicy;
}

export interface SendResult {
  /** 2xx. */
  ok: boolean;
  status?: number;
  latencyMs: number;
  /** At most `RESPONSE_BODY_LIMIT` bytes of the response, decoded as UTF-8. */
  responseBody?: string;
  /** From `Retry-After` (seconds or HTTP date). */
  retryAfterMs?: number;
  /** `'timeout'` or the network error message; absent when a response arrived. */
  error?: string;
  /** Why the destination was refused; nothing was sent. Also the `error`. */
  refused?: string;
}

export const RESPONSE_BODY_LIMIT = 2048;

/** `Retry-After` as delta-seconds or an HTTP date; undefined when absent or unparseable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // The letter check keeps V8's lenient parser from reading numbers like "1.5" as dates.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Keep-alive connection pools, one pair per service instance, so consumers' endpoints are not re-dialled. */
export interface WebhookAgents {
  http: HttpAgent;
  https: HttpsAgent;
  destroy(): void;
}

export function createWebhookAgents(maxSockets = 64): WebhookAgents {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: 16 };
  const agents = { http: new HttpAgent(options), https: new HttpsAgent(options) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * One POST of a webhook, over node:http(s) (far cheaper per request than fetch). The host is resolved and
 * every address checked before connecting, and the connection goes to the checked address. Redirects are
 * not followed; the timeout covers the whole exchange, resolution included; at most RESPONSE_BODY_LIMIT
 * bytes of the answer are read. Never throws: every failure is described in the result.
 */
export function sendWebhook(input: SendInput): Promise<SendResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const failed = (error: unknown) =>
      finish({ ok: false, error: error instanceof Error ? error.message || String(error) : String(error) });
    const answered = () => {
      const status = response!.statusCode ?? 0;
      const retryAfterMs = parseRetryAfter(headerValue(response!.headers['retry-after']));
      finish({
        ok: status >= 200 && status < 300,
        status,
        responseBody: decodeBounded(chunks, size),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    };
    const timer = setTimeout(() => {
      // A stalled body still counts as answered: the status is what decides the outcome.
      if (response) answered();
      else finish({ ok: false, error: 'timeout' });
      request?.destroy();
    }, input.timeoutMs);

    let request: ClientRequest | undefined;
    const post = (target: Target, addresses: ResolvedAddress[]) => {
      const send = target.secure ? httpsRequest : httpRequest;
      const agent = input.agents ? (target.secure ? input.agents.https : input.agents.http) : undefined;
      // The URL's parts as http.request would take them from a URL, with the request's own options over them.
      const options = {
        ...target.options,
        method: 'POST',
        headers: requestHeaders(input),
        lookup: pinnedLookup(addresses),
        ...(agent ? { agent } : {}),
      };
      request = send(options, (res) => {
        response = res;
        res.on('data', (chunk: Buffer) => {
          if (size >= RESPONSE_BODY_LIMIT) return;
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: a huge or endless body must cost neither memory nor time.
          if (size >= RESPONSE_BODY_LIMIT) {
            answered();
            res.destroy();
          }
        });
        res.on('end', answered);
        res.on('error', answered);
        res.on('close', answered);
      });
      request.on('error', (error) => {
        if (response) answered();
        else failed(error);
      });
      request.end(input.body);
    };

    try {
      const target = targetOf(input.url);
      input.destinations
        .check(target.hostname)
        .then((verdict) => {
          if (settled) return;
          if ('refused' in verdict) finish({ ok: false, error: verdict.refused, refused: verdict.refused });
          else post(target, verdict.addresses);
        })
        .catch(failed);
    } catch (error) {
      failed(error);
    }
  });
}

/** Where a hook's URL points: its host for the destination check, and its parts as http.request takes them. */
interface Target {
  secure: boolean;
  hostname: string;
  options: Readonly<ReturnType<typeof urlToHttpOptions>>;
}

/** Targets of the hooks' URLs, parsed once per URL: every attempt sends to one. */
const targets = new Map<string, Target>();
const MAX_KEPT_TARGETS = 1000;

/** Throws for a URL that cannot be parsed or is not http(s), as every attempt to it would. */
function targetOf(text: string): Target {
  const known = targets.get(text);
  if (known) return known;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported protocol ${url.protocol}`);
  const target: Target = { secure: url.protocol === 'https:', hostname: url.hostname, options: urlToHttpOptions(url) };
  setBounded(targets, text, target, MAX_KEPT_TARGETS);
  return target;
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function requestHeaders({ body, headers, customHeaders, userAgent }: SendInput): Record<string, string> {
  const result: Record<string, string> = {};
  const set = (name: string, value: string) => {
    result[name.toLowerCase()] = value;
  };
  for (const [name, value] of Object.entries(customHeaders ?? {})) set(name, value);
  set('content-type', 'application/json');
  set('user-agent', userAgent);
  set('content-length', String(Buffer.byteLength(body)));
  for (const [name, value] of Object.entries(headers)) set(name, value);
  return result;
}

/** Decodes whole inputs only (no `stream`), so one serves every response. */
const utf8 = new TextDecoder();

/** The first RESPONSE_BODY_LIMIT bytes as UTF-8, without a character split by the cut. */
function decodeBounded(chunks: Buffer[], size: number): string {
  // Most endpoints answer with an empty body (204, or 200 without one).
  if (size === 0) return '';
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT);
  const text = utf8.decode(bytes);
  return size > RESPONSE_BODY_LIMIT ? text.replace(/\uFFFD$/, '') : text;
}
