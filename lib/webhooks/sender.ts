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

/** One POST of a webhook. Never throws: every failure is described in the result. */
export async function sendWebhook(input: SendInput): Promise<SendResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  const signal = AbortSignal.timeout(input.timeoutMs);
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      body: input.body,
      headers: requestHeaders(input),
      redirect: 'manual',
      signal,
    });
    const responseBody = await readBounded(response, RESPONSE_BODY_LIMIT);
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return {
      ok: response.status >= 200 && response.status < 300,
      status: response.status,
      latencyMs: elapsed(),
      responseBody,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (error) {
    return { ok: false, latencyMs: elapsed(), error: signal.aborted ? 'timeout' : describe(error) };
  }
}

function requestHeaders({ headers, customHeaders, userAgent }: SendInput): Headers {
  const result = new Headers(customHeaders);
  result.set('content-type', 'application/json');
  result.set('user-agent', userAgent);
  for (const [name, value] of Object.entries(headers)) result.set(name, value);
  return result;
}

/**
 * Reads up to `limit` bytes and cancels the rest, so a huge or endless response costs neither memory nor
 * time. A body that stalls is cut by the request's timeout signal; the status already received still counts.
 */
async function readBounded(response: Response, limit: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Timed out or reset mid-body: keep what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  // A cut may split a multi-byte character; drop the resulting replacement character.
  const text = new TextDecoder().decode(bytes);
  return size > limit ? text.replace(/\uFFFD$/, '') : text;
}

function describe(error: unknown): string {
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`.
  if (error instanceof Error) {
    const { cause } = error;
    if (cause instanceof Error && cause.message) return cause.message;
    if (error.message) return error.message;
  }
  return String(error);
}
