import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  introspectAsClient,
  oauthError,
  subjectToken,
  tokenRequest,
} from '../support/fixtures.ts';
import { accountClient } from '../support/account.ts';
import { newId } from '../../lib/ids.ts';
import { ConfigurationError } from '../../lib/config.ts';
import { createIdentityService } from '../../app/index.ts';
import { pino } from 'pino';
import { ACCESS_TOKEN_TYPE as AT, TOKEN_EXCHANGE_GRANT as GRANT } from '../../lib/impersonation/grant.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const INDICATOR = 'https://guard-rails.example.com';
const PROTECTED_ROLE = 'Support lead';
const PASSWORD = 'impersonated user passphrase 7';
const PROTECTED = 'the user holds a protected role and cannot be impersonated';

interface AuditEntry {
  type: string;
  userId: string | null;
  error: string | null;
  errorDescription: string | null;
}

/** The rules the server enforces around impersonation, whoever asks and by whichever path. */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`impersonation guard rails (${backend})`, () => {
    let running: RunningService;
    let app: { id: string; secret?: string };
    let organizationId: string;
    let protectedRoleId: string;
    let managementRoleId: string;
    let actorToken: string;
    let actorId: string;

    before(async () => {
      running = await startService({
        env: {
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
          IMPERSONATION_PROTECTED_ROLES: ` ${PROTECTED_ROLE} ,Auditor`,
        },
      });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
      await createResource(running, INDICATOR, ['read']);
      // With a redirect URI, so that it may use the refresh-token grant too.
      app = await createApplication(running, {
        type: 'Traditional',
        customClientMetadata: { allowTokenExchange: true },
        oidcClientMetadata: { redirectUris: ['https://app.example.com/callback'] },
      });
      const role = await running.request('/api/roles', {
        method: 'POST',
        json: { name: PROTECTED_ROLE, description: 'protected by name' },
      });
      expect(role.status).to.equal(201);
      protectedRoleId = ((await role.json()) as { id: string }).id;
      // A User role granting a management API scope can only come from data written before such roles were refused.
      const management = (await (await running.request('/api/resources/management-api/scopes')).json()) as Array<{
        id: string;
        name: string;
      }>;
      const { roles } = running.service.records;
      managementRoleId = (
        await roles.insert({
          id: newId(),
          name: `legacy-${newId(6)}`,
          description: '',
          type: 'User',
          isDefault: false,
          createdAt: Date.now(),
        })
      ).id;
      await roles.addScopes(managementRoleId, [management.find((scope) => scope.name === 'all')!.id]);
      const organization = await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme' } });
      organizationId = ((await organization.json()) as { id: string }).id;
      const actor = await createUser(running, [], { name: 'Sam Support' }, PASSWORD);
      actorId = actor.id;
      actorToken = await (await accountClient(running)).signIn(actor.username!, PASSWORD, 'openid');
    });
    after(() => running.close());

    const exchange = (params: Record<string, string | undefined>) =>
      tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, ...params }, app);
    const createSubjectToken = (json: Record<string, unknown>) =>
      running.request('/api/subject-tokens', { method: 'POST', json });
    const auditOf = async (userId: string) =>
      (await (await running.request(`/api/impersonation-logs?userId=${userId}`)).json()) as AuditEntry[];
    const joinOrganization = async (userId: string) => {
      const res = await running.request(`/api/organizations/${organizationId}/users`, {
        method: 'POST',
        json: { userIds: [userId] },
      });
      expect(res.status).to.equal(201);
    };

    describe('protected roles', () => {
      it('refuses a subject token for a holder of a role named in IMPERSONATION_PROTECTED_ROLES, with 422, audited', async () => {
        const holder = await createUser(running, [protectedRoleId]);
        const res = await createSubjectToken({ userId: holder.id, reason: 'ticket 1' });
        expect(res.status).to.equal(422);
        expect(await res.json()).to.include({ code: 'user.impersonation_protected' });
        const [entry] = await auditOf(holder.id);
        expect(entry).to.include({
          type: 'SubjectToken.Refused',
          error: 'user.impersonation_protected',
          errorDescription: PROTECTED,
        });

        // The console-admin role is always protected; an ordinary role is not.
        const admin = await createUser(running, ['console-admin']);
        expect((await createSubjectToken({ userId: admin.id })).status).to.equal(422);
        const ordinary = await createUser(running, [(await createRole(running, [])).id]);
        expect((await createSubjectToken({ userId: ordinary.id })).status).to.equal(201);
        const manager = await createUser(running, [managementRoleId]);
        expect(
          (await createSubjectToken({ userId: manager.id })).status,
          'a role granting a management scope',
        ).to.equal(422);
      });

      for (const [gained, roleOf] of [
        ['a role named as protected', () => protectedRoleId],
        ['the console-admin role', () => 'console-admin'],
        ['a role granting a management API scope', () => managementRoleId],
      ] as const) {
        it(`refuses every exchange once the user gained ${gained} after the subject token was made, audited`, async () => {
          const user = await createUser(running);
          await joinOrganization(user.id);
          const token = await subjectToken(running, user.id);
          const assigned = await running.request(`/api/users/${user.id}/roles`, {
            method: 'POST',
            json: { roleIds: [roleOf()] },
          });
          expect(assigned.status).to.equal(201);

          // Without and with an actor, for the userinfo endpoint, an API, the organization, and the API within it.
          const paths: Array<Record<string, string>> = [
            { scope: 'openid' },
            { resource: INDICATOR },
            { actor_token: actorToken, actor_token_type: AT, resource: INDICATOR },
            { actor_token: actorToken, actor_token_type: AT, scope: 'openid' },
            { organization_id: organizationId },
            { organization_id: organizationId, resource: INDICATOR },
            { organization_id: organizationId, actor_token: actorToken, actor_token_type: AT },
          ];
          for (const params of paths) {
            const refused = await exchange({ subject_token: token, ...params });
            expect([refused.status, refused.body], JSON.stringify(params)).to.deep.equal([
              403,
              oauthError('access_denied', PROTECTED),
            ]);
          }
          const failures = (await auditOf(user.id)).filter((entry) => entry.type === 'TokenExchange.Failed');
          expect(failures).to.have.length(paths.length);
          for (const failure of failures)
            expect(failure).to.include({ error: 'access_denied', errorDescription: PROTECTED });
          expect((await running.request(`/api/impersonations?userId=${user.id}`)).headers.get('total-number')).to.equal(
            '0',
          );

          // Losing the role makes the same, unspent, subject token usable again.
          const removed = await running.request(`/api/users/${user.id}/roles/${roleOf()}`, { method: 'DELETE' });
          expect(removed.status).to.equal(204);
          expect((await exchange({ subject_token: token, resource: INDICATOR })).status).to.equal(200);
        });
      }

      it('gives no refresh token, so no refresh grant (with organization_id or not) can follow an impersonation', async () => {
        const user = await createUser(running);
        await joinOrganization(user.id);
        const issued = await exchange({
          subject_token: await subjectToken(running, user.id),
          scope: 'openid offline_access',
        });
        expect(issued.status).to.equal(200);
        expect(issued.body).not.to.have.property('refresh_token');
        expect(issued.body.scope).to.equal('openid');
        for (const extra of [{}, { organization_id: organizationId }]) {
          const refreshed = await tokenRequest(
            running,
            {
              grant_type: 'refresh_token',
              refresh_token: issued.body.access_token as string,
              ...extra,
            },
            app,
          );
          expect([refreshed.status, refreshed.body.error], JSON.stringify(refreshed.body)).to.deep.equal([
            400,
            'invalid_grant',
          ]);
        }
      });
    });

    describe('requireReason, a sign-in experience setting', () => {
      const setting = async (patch: unknown) =>
        running.request('/api/sign-in-exp', { method: 'PATCH', json: { impersonation: patch } });
      afterEach(async () => {
        expect((await setting({ requireReason: false, notifyByEmail: false })).status).to.equal(200);
      });

      it('is off by default, changed at runtime, and then refuses a subject token without a reason with 400 naming it', async () => {
        const user = await createUser(running);
        const read = (await (await running.request('/api/sign-in-exp')).json()) as { impersonation: unknown };
        expect(read.impersonation).to.deep.equal({ requireReason: false, notifyByEmail: false });
        expect((await createSubjectToken({ userId: user.id })).status).to.equal(201);

        const patched = await setting({ requireReason: true });
        expect(patched.status).to.equal(200);
        // A partial patch keeps the other field.
        expect(((await patched.json()) as { impersonation: unknown }).impersonation).to.deep.equal({
          requireReason: true,
          notifyByEmail: false,
        });

        for (const body of [{ userId: user.id }, { userId: user.id, reason: '   ' }]) {
          const refused = await createSubjectToken(body);
          expect(refused.status, JSON.stringify(body)).to.equal(400);
          const error = (await refused.json()) as {
            code: string;
            message: string;
            data: { issues: Array<{ path: string }> };
          };
          expect(error.code).to.equal('guard.invalid_input');
          expect(error.message).to.contain('reason');
          expect(error.data.issues.map((issue) => issue.path)).to.deep.equal(['body.reason']);
        }
        const given = await createSubjectToken({ userId: user.id, reason: 'Ticket SUP-12' });
        expect(given.status).to.equal(201);
        const exchanged = await exchange({
          subject_token: ((await given.json()) as { subjectToken: string }).subjectToken,
          resource: INDICATOR,
        });
        const record = await (
          await running.request(
            `/api/impersonations/${decodeJwt(exchanged.body.access_token as string).impersonation_id}`,
          )
        ).json();
        expect(record).to.include({ reason: 'Ticket SUP-12' });

        expect((await setting({ requireReason: false })).status).to.equal(200);
        expect((await createSubjectToken({ userId: user.id })).status).to.equal(201);
      });

      it('is not an environment variable: a deployment still setting IMPERSONATION_REQUIRE_REASON does not start', async () => {
        const error = await createIdentityService({
          env: { STORAGE: 'memory', IMPERSONATION_REQUIRE_REASON: 'true' },
          logger: pino({ level: 'silent' }),
          print: () => {},
        }).then(
          async (service) => {
            await service.close();
            return undefined;
          },
          (caught: unknown) => caught,
        );
        expect(error).to.be.instanceOf(ConfigurationError);
        expect((error as Error).message)
          .to.contain('IMPERSONATION_REQUIRE_REASON: no longer read')
          .and.contain('impersonation.requireReason');
      });

      it('refuses a malformed setting with 400 and keeps the stored one', async () => {
        for (const patch of [{ requireReason: 'yes' }, { requireReason: true, other: 1 }, 'on']) {
          const res = await setting(patch);
          expect(res.status, JSON.stringify(patch)).to.equal(400);
          expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
        }
        const read = (await (await running.request('/api/sign-in-exp')).json()) as { impersonation: unknown };
        expect(read.impersonation).to.deep.equal({ requireReason: false, notifyByEmail: false });
      });
    });

    it('a banner has what it needs: act and impersonation_id in the JWT, and in what introspection says of an opaque token', async () => {
      const user = await createUser(running);
      const actorParams = { actor_token: actorToken, actor_token_type: AT };
      const jwt = (
        await exchange({ subject_token: await subjectToken(running, user.id), resource: INDICATOR, ...actorParams })
      ).body;
      const claims = decodeJwt(jwt.access_token as string);
      expect(claims.act).to.deep.equal({ sub: actorId });
      expect(claims.impersonation_id).to.be.a('string');
      const opaque = (
        await exchange({ subject_token: await subjectToken(running, user.id), scope: 'openid', ...actorParams })
      ).body;
      const seen = await introspectAsClient(running, { id: app.id, secret: app.secret }, opaque.access_token as string);
      expect(seen).to.include({ active: true, sub: user.id });
      expect(seen.act).to.deep.equal({ sub: actorId });
      expect(seen.impersonation_id).to.be.a('string').and.not.equal(claims.impersonation_id);
    });

    it('the Experience API cannot be entered with an impersonation token, JWT or opaque', async () => {
      const user = await createUser(running);
      const jwt = (await exchange({ subject_token: await subjectToken(running, user.id), resource: INDICATOR })).body
        .access_token as string;
      const opaque = (await exchange({ subject_token: await subjectToken(running, user.id), scope: 'openid' })).body
        .access_token as string;
      for (const [method, path] of [
        ['PUT', '/api/experience'],
        ['POST', '/api/experience/verification/password'],
        ['GET', '/api/experience/interaction'],
        ['POST', '/api/experience/submit'],
      ]) {
        for (const token of [jwt, opaque]) {
          const res = await fetch(`${running.baseUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: method === 'GET' ? undefined : JSON.stringify({ interactionEvent: 'SignIn' }),
          });
          expect(res.status, `${method} ${path}`).to.equal(403);
          expect(await res.json()).to.include({ code: 'auth.impersonation_not_allowed' });
        }
      }
      // The user's own token is no impersonation: the request goes on (and finds no sign-in to act on).
      const own = await fetch(`${running.baseUrl}/api/experience`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${actorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ interactionEvent: 'SignIn' }),
      });
      expect(own.status).to.equal(400);
      expect(await own.json()).to.include({ code: 'session.not_found' });
    });

    it('GET /api/my-account/impersonations shows the user, with their own token, when, which application, who and why, never the context', async () => {
      const user = await createUser(running, [], {}, PASSWORD);
      const withActor = await createSubjectToken({
        userId: user.id,
        reason: 'Ticket SUP-40: invoice missing',
        context: { secret: 'internal note' },
      });
      const first = await exchange({
        subject_token: ((await withActor.json()) as { subjectToken: string }).subjectToken,
        resource: INDICATOR,
        actor_token: actorToken,
        actor_token_type: AT,
      });
      const second = await exchange({ subject_token: await subjectToken(running, user.id), scope: 'openid' });
      const firstId = decodeJwt(first.body.access_token as string).impersonation_id as string;
      expect((await running.request(`/api/impersonations/${firstId}/revoke`, { method: 'POST' })).status).to.equal(200);
      const appName = ((await (await running.request(`/api/applications/${app.id}`)).json()) as { name: string }).name;

      const own = await (await accountClient(running)).signIn(user.username!, PASSWORD, 'openid');
      const res = await running.request('/api/my-account/impersonations', { token: own });
      expect(res.status).to.equal(200);
      expect(res.headers.get('total-number')).to.equal('2');
      const text = await res.text();
      expect(text).not.to.contain('internal note');
      const [newest, oldest] = JSON.parse(text) as Array<Record<string, unknown>>;
      expect(newest).to.include({ status: 'active', reason: null, actor: null, revokedAt: null });
      expect(newest!.application).to.deep.equal({ id: app.id, name: appName });
      expect(newest!.id).to.equal(
        (
          (await (await running.request(`/api/impersonations?userId=${user.id}&status=active`)).json()) as Array<{
            id: string;
          }>
        )[0]!.id,
      );
      expect(oldest).to.include({ id: firstId, status: 'revoked', reason: 'Ticket SUP-40: invoice missing' });
      expect(oldest!.actor).to.deep.include({ name: 'Sam Support' });
      expect(oldest!.revokedAt).to.be.a('number');
      expect(Object.keys(oldest!).sort()).to.deep.equal([
        'actor',
        'application',
        'expiresAt',
        'id',
        'issuedAt',
        'reason',
        'revokedAt',
        'status',
      ]);
      expect(second.status).to.equal(200);

      // Paged as the rest of the API; another user's token sees only their own.
      const paged = await running.request('/api/my-account/impersonations?page=2&page_size=1', { token: own });
      expect(((await paged.json()) as Array<{ id: string }>).map((item) => item.id)).to.deep.equal([firstId]);
      expect(
        await (await running.request('/api/my-account/impersonations', { token: actorToken })).json(),
      ).to.deep.equal([]);
      expect((await running.request('/api/my-account/impersonations', { token: 'nope' })).status).to.equal(401);
    });
  });
}
