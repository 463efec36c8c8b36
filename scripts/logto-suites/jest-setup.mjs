// Loaded by Jest inside Logto's integration tests, before their own setup files (plain JavaScript: Jest runs
// Logto's suites without a transform). Two things, both through `fetch`, which every client of theirs calls:
// - Logto authenticates its test admin with the development-only `development-user-id` header; here the
//   request carries the management token of this run instead.
// - Every request is written to a log with the test that made it, so a failure can be reported with the
//   status and error code the service actually answered.
import { appendFileSync } from 'node:fs';

const token = process.env.LOGTO_SUITES_TOKEN;
const requestLog = process.env.LOGTO_SUITES_REQUEST_LOG;
const sendWithoutTrace = globalThis.fetch;

// The test running now. Jest keeps `currentTestName` after a test ends, so requests of a later beforeAll would be
// put on the previous test: these root hooks (run first before and last after each test) bound it.
let currentTest = null;
beforeEach(() => {
  currentTest = expect.getState().currentTestName ?? null;
});
afterEach(() => {
  currentTest = null;
});

/** The code and message of a JSON error answer (Logto's `{ code, message }` or OAuth's `{ error, error_description }`). */
async function errorOf(response) {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return {};
  try {
    const body = await response.clone().json();
    const code = body?.code ?? body?.error;
    const message = body?.message ?? body?.error_description;
    return {
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof message === 'string' ? { message: message.slice(0, 300) } : {}),
    };
  } catch {
    return {};
  }
}

globalThis.fetch = async (input, init) => {
  let request = new Request(input, init);
  if (request.headers.has('development-user-id')) {
    const headers = new Headers(request.headers);
    headers.delete('development-user-id');
    headers.set('authorization', `Bearer ${token}`);
    request = new Request(request, { headers });
  }
  // Null in beforeAll/afterAll hooks.
  const test = currentTest;
  const url = new URL(request.url);
  const entry = { test, method: request.method, path: url.pathname + url.search, at: Date.now() };
  try {
    const response = await sendWithoutTrace(request);
    entry.status = response.status;
    if (response.status >= 300 && response.status < 400) entry.location = response.headers.get('location') ?? undefined;
    if (response.status >= 400) Object.assign(entry, await errorOf(response));
    return response;
  } catch (error) {
    entry.error = String(error?.cause?.code ?? error?.message ?? error);
    throw error;
  } finally {
    if (requestLog) appendFileSync(requestLog, `${JSON.stringify(entry)}\n`);
  }
};
