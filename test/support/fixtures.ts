import { expect } from 'chai';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../../lib/users/passwords.ts';
import type { RunningService } from './service.ts';

async function created<T>(res: Response): Promise<T> {
  const body = await res.text();
  expect(res.status, body).to.be.oneOf([200, 201]);
  return JSON.parse(body) as T;
}

export interface ApiFixture {
  resource: { id: string; indicator: string };
  scopes: Record<string, { id: string; name: string }>;
}

/** An API resource with the given scopes, through the management API. */
export async function createResource(
  running: RunningService,
  indicator: string,
  scopeNames: string[],
): Promise<ApiFixture> {
  const resource = await created<{ id: string; indicator: string }>(
    await running.request('/api/resources', {
      method: 'POST',
      json: { name: indicator, indicator },
    }),
  );
  const scopes: ApiFixture['scopes'] = {};
  for (const name of scopeNames) {
    scopes[name] = await created(
      await running.request(`/api/resources/${resource.id}/scopes`, { method: 'POST', json: { name } }),
    );
  }
  return { resource, scopes };
}

export async function createRole(
  running: RunningService,
  scopeIds: string[],
  type: 'User' | 'MachineToMachine' = 'User',
) {
  return created<{ id: string }>(
    await running.request('/api/roles', {
      method: 'POST',
      json: { name: `role-${newId(8)}`, description: 'test role', type, scopeIds },
    }),
  );
}

export async function createApplication(
  running: RunningService,
  body: {
    type: string;
    name?: string;
    customClientMetadata?: Record<string, unknown>;
    isThirdParty?: boolean;
    oidcClientMetadata?: unknown;
  },
) {
  return created<{ id: string; secret?: string }>(
    await running.request('/api/applications', {
      method: 'POST',
      json: { name: `app-${newId(6)}`, ...body },
    }),
  );
}

/** A user stored directly (the fixture does not depend on the users API under test elsewhere). */
export async function createUser(
  running: RunningService,
  roleIds: string[] = [],
  fields: Record<string, unknown> = {},
  password?: string,
) {
  const now = Date.now();
  const secrets = password ? { passwordDigest: await hashPassword(password) } : {};
  const user = await running.service.records.users.insert(
    {
      id: newId(12),
      username: `user_${newId(8)}`,
      primaryEmail: null,
      primaryPhone: null,
      name: 'Test User',
      avatar: null,
      customData: {},
      identities: {},
      profile: {},
      applicationId: null,
      isSuspended: false,
      lastSignInAt: null,
      createdAt: now,
      updatedAt: now,
      hasPassword: Boolean(password),
      ...fields,
    },
    secrets,
  );
  if (roleIds.length) await running.service.records.roles.assignToUser(user.id, roleIds);
  return user;
}

export async function subjectToken(
  running: RunningService,
  userId: string,
  context?: Record<string, unknown>,
): Promise<string> {
  const body = await created<{ subjectToken: string; expiresIn: number }>(
    await running.request('/api/subject-tokens', {
      method: 'POST',
      json: context ? { userId, context } : { userId },
    }),
  );
  return body.subjectToken;
}

/** POSTs a form to the token endpoint, optionally with HTTP Basic client authentication. */
export async function tokenRequest(
  running: RunningService,
  params: Record<string, string | undefined>,
  client?: { id: string; secret?: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (client?.secret)
    headers.authorization = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) form.set(key, value);
  const res = await fetch(`${running.baseUrl}/oidc/token`, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Introspection by the client the token was issued to (allowed for its own tokens). */
export async function introspectAsClient(running: RunningService, app: { id: string; secret?: string }, token: string) {
  const res = await fetch(`${running.baseUrl}/oidc/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).to.equal(200);
  return res.json() as Promise<Record<string, unknown>>;
}

/** An OAuth error body as the token endpoint answers it: OAuth's fields, and Logto's `code` and `message` beside them. */
export function oauthError(error: string, description: string): Record<string, string> {
  return { error, error_description: description, code: `oidc.${error}`, message: description };
}

/** A management API call that must succeed (any 2xx): its JSON answer, or undefined for an empty one. */
export async function apiJson(running: RunningService, path: string, method: string, body?: unknown) {
  const res = await running.request(path, { method, json: body });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).to.be.lessThan(300);
  return text ? JSON.parse(text) : undefined;
}
