import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoggedRequest, SuiteOutcome } from './suites.ts';

/** One failing test, with what it expected and what the service answered, as far as the report tells. */
export interface Failure {
  suite: string;
  /** The test's full name; `(suite)` when the suite as a whole could not run or was ended. */
  test: string;
  /** The failure's first line, with Jest's Expected/Received lines when it has them. */
  message: string;
  /** Where in Logto's sources the test failed: `src/tests/api/….test.ts:<line>`. */
  location?: string;
  expected?: Answer;
  actual?: Answer;
  /** The request the failure is about: the last the test made that was refused, else its last one. */
  request?: Pick<LoggedRequest, 'method' | 'path' | 'status' | 'location' | 'code' | 'message' | 'error'>;
}

interface Answer {
  status?: number;
  code?: string;
  /** Jest's Expected/Received value when it is neither a status nor a code. */
  value?: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes start with ESC.
const ANSI = /\u001b\[[0-9;]*m/g;
const HTTP_ERROR = /Request failed with status code (\d{3})/;
const TEST_FRAME = /(src\/tests\/\S+?\.test\.ts):(\d+):\d+/;

export function failuresOf(outcome: SuiteOutcome, testsRoot: string): Failure[] {
  if (outcome.status === 'timeout' || (outcome.suiteMessage && outcome.assertions.length === 0)) {
    const last = outcome.requests.at(-1);
    return [
      {
        suite: outcome.name,
        test: '(suite)',
        message: firstLines(outcome.suiteMessage ?? 'failed', 6),
        ...(last ? { request: pick(last) } : {}),
      },
    ];
  }
  return outcome.assertions
    .filter((assertion) => assertion.status === 'failed')
    .map((assertion) =>
      describeFailure(outcome, assertion.fullName, assertion.failureMessages.join('\n').replace(ANSI, ''), testsRoot),
    );
}

function describeFailure(outcome: SuiteOutcome, test: string, text: string, testsRoot: string): Failure {
  const own = outcome.requests.filter((request) => request.test === test);
  // A test failed by a beforeAll hook (or a step of one) made its requests outside any test.
  const hooks = outcome.requests.filter((request) => request.test === null);
  const find = (matches: (request: LoggedRequest) => boolean): LoggedRequest | undefined =>
    own.findLast(matches) ?? hooks.findLast(matches);
  const frame = TEST_FRAME.exec(text);
  const location = frame ? `${frame[1]}:${frame[2]}` : undefined;
  const expectedValue = /^\s*Expected: (.*)$/m.exec(text)?.[1];
  const receivedValue = /^\s*Received: (.*)$/m.exec(text)?.[1];
  const failure: Failure = { suite: outcome.name, test, message: summarise(text), ...(location ? { location } : {}) };

  const httpError = HTTP_ERROR.exec(text);
  if (httpError && !expectedValue) {
    // A request the test expected to succeed was refused.
    const status = Number(httpError[1]);
    const refused = find((request) => request.status === status);
    failure.expected = { value: '2xx' };
    failure.actual = { status, ...(refused?.code ? { code: refused.code } : {}) };
    if (refused) failure.request = pick(refused);
    return failure;
  }

  const rejection = frame ? expectedRejection(testsRoot, frame[1]!, Number(frame[2])) : undefined;
  const refused = find((request) => (request.status ?? 0) >= 400 || request.error !== undefined);
  const last = own.at(-1) ?? hooks.at(-1);
  if (rejection) {
    // `expectRejects(promise, { code, status })`: the code is compared first, then the status.
    failure.expected = rejection;
    if (!expectedValue && last && (last.status ?? 0) < 400) {
      // Jest's `fail()`: the request the test expected to be refused succeeded.
      failure.actual = { ...(last.status ? { status: last.status } : {}) };
      failure.request = pick(last);
    } else if (refused) {
      failure.actual = {
        ...(refused.status ? { status: refused.status } : {}),
        ...(refused.code ? { code: refused.code } : {}),
      };
      failure.request = pick(refused);
    }
    return failure;
  }

  if (expectedValue !== undefined) failure.expected = asAnswer(expectedValue);
  if (receivedValue !== undefined) failure.actual = asAnswer(receivedValue);
  const request = refused ?? last;
  if (request) failure.request = pick(request);
  return failure;
}

/**
 * The `{ code, status }` an `expectRejects(...)` call at this line of a test expects, read from the test's source
 * (the call spans a few lines; its object names the code and the status).
 */
function expectedRejection(testsRoot: string, file: string, line: number): Answer | undefined {
  const path = join(testsRoot, file);
  if (!existsSync(path)) return undefined;
  const lines = readFileSync(path, 'utf8').split('\n');
  // The frame is the line of the `await`; with the promise on a line of its own, the call starts just above.
  const first = [line - 1, line - 2, line - 3].find((index) => index >= 0 && lines[index]?.includes('expectRejects'));
  if (first === undefined) return undefined;
  const call = lines.slice(first, first + 15).join('\n');
  const code = /code:\s*['"`]([^'"`]+)['"`]/.exec(call)?.[1];
  const status = /status:\s*(\d{3})/.exec(call)?.[1];
  if (!code && !status) return undefined;
  return { ...(code ? { code } : {}), ...(status ? { status: Number(status) } : {}) };
}

function asAnswer(value: string): Answer {
  if (/^\d{3}$/.test(value)) return { status: Number(value) };
  const code = /^"([a-z_]+(?:\.[a-z_]+)+)"$/.exec(value)?.[1];
  return code ? { code } : { value };
}

function pick(request: LoggedRequest): NonNullable<Failure['request']> {
  const { test: _test, at: _at, ...answer } = request;
  return answer;
}

/**
 * The first line of the failure, with Jest's Expected/Received lines or the changed lines of its object diff
 * (`toMatchObject`) when it has them.
 */
function summarise(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const head = lines[0]?.trim() ?? '';
  const compared = lines
    .map((line) => line.trim())
    .filter((line) => /^(Expected|Received)( value)?:/.test(line))
    .slice(0, 2);
  const diff = lines
    .filter((line) => /^\s*[-+] {2,}\S/.test(line))
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .slice(0, 8);
  return [head, ...compared, ...diff].join(' | ').slice(0, 800);
}

function firstLines(text: string, count: number): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, count)
    .join(' | ')
    .slice(0, 800);
}
