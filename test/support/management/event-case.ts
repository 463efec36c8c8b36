import { expect } from 'chai';
import type { EventName } from '../../../lib/events/catalogue.ts';
import type { MANAGEMENT_EVENTS } from '../../../lib/events/management-events.ts';
import { expectMatchesSchema } from '../event-schemas.ts';
import { USER_AGENT, type ApiResponse, type Harness } from './harness.ts';

export type ManagementRouteKey = keyof typeof MANAGEMENT_EVENTS;

export interface ExpectedEvent {
  event: EventName;
  data: unknown;
  /** Top-level fields beyond the management-API context (e.g. `organizationId`, `addedUserIds`). */
  fields?: Record<string, unknown>;
}

/** A request to the same route that must fail with `status` and publish nothing. */
export interface Failure {
  why: string;
  path: string;
  body?: unknown;
  /** Sent as is instead of `body` (malformed JSON). */
  raw?: string;
  /** Headers of this request instead of the scenario's (another token, another verification record). */
  headers?: Record<string, string>;
  status: 400 | 401 | 403 | 404 | 409 | 422;
}

export interface Scenario {
  /** Concrete path relative to `/api`. */
  path: string;
  body?: unknown;
  status: number;
  params: Record<string, string>;
  /** Sent with the request and its failures (an end user's token, a verification record id). */
  headers?: Record<string, string>;
  /** The events the successful request must publish, in order, each exactly once. */
  expected(response: ApiResponse): Promise<ExpectedEvent[]> | ExpectedEvent[];
  failures: Failure[];
}

/** One row of the operation → event table, exercised end to end. */
export interface EventCase {
  route: ManagementRouteKey;
  title: string;
  arrange(h: Harness): Promise<Scenario>;
}

const CONTEXT_FIELDS = [
  'event',
  'createdAt',
  'sequence',
  'version',
  'ip',
  'userAgent',
  'path',
  'method',
  'status',
  'params',
  'matchedRoute',
  'data',
];

/** Runs the failures (nothing published), then the success, and checks every published payload field. */
export async function runEventCase(h: Harness, eventCase: EventCase): Promise<void> {
  const [method, matchedRoute] = eventCase.route.split(' ') as [string, string];
  const scenario = await eventCase.arrange(h);

  for (const failure of scenario.failures) {
    h.clear();
    const headers = failure.headers ?? scenario.headers;
    const res = await h.api(method, failure.path, failure.body, {
      ...(failure.raw !== undefined && { raw: failure.raw }),
      headers,
    });
    expect(res.status, `${failure.why}: ${JSON.stringify(res.body)}`).to.equal(failure.status);
    expect(res.body?.code, failure.why).to.be.a('string');
    expect(
      h.events.map((e) => e.event),
      `${failure.why} must publish nothing`,
    ).to.deep.equal([]);
  }

  h.clear();
  const before = Date.now();
  const res = await h.api(method, scenario.path, scenario.body, { headers: scenario.headers });
  const after = Date.now();
  expect(res.status, JSON.stringify(res.body)).to.equal(scenario.status);
  const expected = await scenario.expected(res);
  const published = [...h.events];
  expect(
    published.map((e) => e.event),
    'published events, each exactly once',
  ).to.deep.equal(expected.map((e) => e.event));

  expected.forEach((want, index) => {
    // Read as a webhook consumer reads the JSON: field by field, whatever the event.
    const got: Record<string, unknown> = published[index]!;
    const label = `${want.event} payload`;
    expect(got.data, `${label} data`).to.deep.equal(want.data);
    expect(got.path, `${label} path`).to.equal(scenario.path);
    expect(got.method, `${label} method`).to.equal(method);
    expect(got.status, `${label} status`).to.equal(scenario.status);
    expect(got.params, `${label} params`).to.deep.equal(scenario.params);
    expect(got.matchedRoute, `${label} matchedRoute`).to.equal(matchedRoute);
    expect(got.userAgent, `${label} userAgent`).to.equal(USER_AGENT);
    expect(got.ip, `${label} ip`).to.be.a('string').and.not.equal('');
    const createdAt = Date.parse(String(got.createdAt));
    expect(new Date(createdAt).toISOString(), `${label} createdAt is ISO`).to.equal(got.createdAt);
    expect(createdAt, `${label} createdAt`).to.be.within(before, after);
    expect(got.sequence, `${label} sequence`).to.be.a('number').and.at.least(1);
    expect(got.version, `${label} version`).to.be.a('number').and.at.least(1);
    for (const [field, value] of Object.entries(want.fields ?? {})) {
      expect(got[field], `${label} ${field}`).to.deep.equal(value);
    }
    expectMatchesSchema(got, label);
    const allowed = new Set([...CONTEXT_FIELDS, ...Object.keys(want.fields ?? {})]);
    expect(
      Object.keys(got).filter((key) => !allowed.has(key)),
      `${label} unexpected fields`,
    ).to.deep.equal([]);
  });
}
