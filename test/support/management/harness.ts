import type { IdentityEvent } from '../../../lib/events/bus.ts';
import { newId } from '../../../lib/ids.ts';
import { startService, type RunningService } from '../service.ts';
import { randomBytes } from 'node:crypto';
import { codeFrom, startMailbox, type Mailbox } from '../mailbox.ts';
import { eventually } from '../wait.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { verifyDelivery } from '../webhooks/hooks.ts';

export const USER_AGENT = 'management-data-tests/1.0';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A running service, a recorder of every published event, and a JSON client for `/api`. */
export interface Harness {
  running: RunningService;
  /** The SMTP server the service sends its email to (verification codes). */
  mailbox: Mailbox;
  /** The code of the latest text message the HTTP SMS connector posted for `phone`. */
  smsCode(phone: string): Promise<string>;
  /** What the service printed at start (the console setup link among it). */
  printed: readonly string[];
  /** Events published since the last `clear()`, in order. */
  readonly events: IdentityEvent[];
  clear(): void;
  /** Sends to `/api{path}`; `body` is JSON unless `raw` is given. */
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    init?: { raw?: string; contentType?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const mailbox = await startMailbox();
  const sms = await Receiver.start();
  const smsKey = `whsec_${randomBytes(32).toString('base64')}`;
  const printed: string[] = [];
  const running = await startService({
    env: { SMTP_URL: mailbox.url, SMS_WEBHOOK_URL: sms.url('/sms'), SMS_WEBHOOK_SIGNING_KEY: smsKey },
    print: (text) => printed.push(text),
  });
  const events: IdentityEvent[] = [];
  const unsubscribe = running.service.core.bus.subscribe(async (published) => {
    events.push(...structuredClone(published));
  });
  return {
    running,
    mailbox,
    printed,
    smsCode: (phone) =>
      eventually(
        () => {
          const texts = sms
            .requests('/sms')
            .map((request) => verifyDelivery(request, smsKey))
            .filter((text) => text.to === phone);
          return texts.length ? codeFrom(texts.at(-1) as { text: string }) : undefined;
        },
        { what: `a text to ${phone}` },
      ),
    events,
    clear: () => {
      events.length = 0;
    },
    async api(method, path, body, init = {}) {
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...init.headers };
      let payload: string | undefined = init.raw;
      if (body !== undefined) payload = JSON.stringify(body);
      if (payload !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
      const res = await running.request(`/api${path}`, { method, headers, body: payload });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    async close() {
      unsubscribe();
      await running.close();
      await mailbox.close();
      await sms.close();
    },
  };
}

/** Succeeds or throws with the answer, for arranging test data. */
export async function ok<T = any>(response: Promise<ApiResponse<T>>): Promise<T> {
  const res = await response;
  if (res.status >= 300) throw new Error(`arrange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const unique = (prefix: string) => `${prefix}_${newId(10)}`;

/** Fixtures created through the API (their events are cleared by the caller). */
export function fixtures(h: Harness) {
  return {
    user: (fields: Record<string, unknown> = {}) =>
      ok(h.api('POST', '/users', { username: unique('user'), ...fields })),
    organization: (fields: Record<string, unknown> = {}) =>
      ok(h.api('POST', '/organizations', { name: unique('org'), ...fields })),
    organizationScope: () => ok(h.api('POST', '/organization-scopes', { name: unique('read') })),
    organizationRole: (fields: Record<string, unknown> = {}) =>
      ok(h.api('POST', '/organization-roles', { name: unique('role'), ...fields })),
    role: (fields: Record<string, unknown> = {}) => ok(h.api('POST', '/roles', { name: unique('role'), ...fields })),
    m2mApplication: () => ok(h.api('POST', '/applications', { name: unique('app'), type: 'MachineToMachine' })),
    async resourceWithScopes(count: number) {
      const resource = await ok(
        h.api('POST', '/resources', { name: unique('api'), indicator: `https://${newId(8)}.example.com` }),
      );
      const scopes = [];
      for (let i = 0; i < count; i += 1)
        scopes.push(await ok(h.api('POST', `/resources/${resource.id}/scopes`, { name: unique('scope') })));
      return { resource, scopes };
    },
    async member(organizationId: string, fields: Record<string, unknown> = {}) {
      const user = await ok(h.api('POST', '/users', { username: unique('member'), ...fields }));
      await ok(h.api('POST', `/organizations/${organizationId}/users`, { userIds: [user.id] }));
      return user;
    },
  };
}
