import { expect } from 'chai';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  introspectAsClient,
  subjectToken,
  tokenRequest,
  type ApiFixture,
} from '../support/fixtures.ts';
import { accountClient } from '../support/account.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';
import { createHook, verifyDelivery, type CreatedHook } from '../support/webhooks/hooks.ts';
import { GRANT, AT } from '../support/token-exchange.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const INDICATOR = 'https://kill-switch.example.com';
const MAX_TTL = 900;
const CONCURRENT = 100;
const ACTOR_PASSWORD = 'support agent passphrase 42';

interface Impersonation {
  id: string;
  userId: string;
  applicationId: string;
  actorUserId: string | null;
  subjectTokenRef: string;
  reason: string | null;
  resource: string | null;
  scope: string;
  issuedAt: number;
  expiresAt: number;
  revokedAt: number | null;
  status: string;
}

for (const backend of ['embedded', 'redis'] as const) {
  describe(`impersonations: the record, its claim and the kill switch (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    let hook: CreatedHook;
    let api: ApiFixture;
    let app: { id: string; secret?: string };
    let resourceServer: client.Configuration;
    let actor: { id: string; username: string | null };
    let actorToken: string;

    before(async () => {
      running = await startService({
        env: {
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
          IMPERSONATION_TOKEN_MAX_TTL_SECONDS: String(MAX_TTL),
          WEBHOOK_RETRY_DELAYS_MS: '50,100',
        },
      });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
      receiver = await Receiver.start();
      hook = await createHook(running, {
        events: ['User.Impersonated', 'Impersonation.Revoked'],
        config: { url: receiver.url('/impersonations') },
      });
      api = await createResource(running, INDICATOR, ['read']);
      // The resource's own TTL is a day: the cap wins.
      expect(
        (
          await running.request(`/api/resources/${api.resource.id}`, {
            method: 'PATCH',
            json: { accessTokenTtl: 86_400 },
          })
        ).status,
      ).to.equal(200);
      app = await createApplication(running, {
        type: 'Traditional',
        customClientMetadata: { allowTokenExchange: true },
      });
      // The API's resource server: an M2M application holding one of its scopes, authenticated as at introspection.
      const server = await createApplication(running, { type: 'MachineToMachine' });
      const serverRole = await createRole(running, [api.scopes.read!.id], 'MachineToMachine');
      expect(
        (
          await running.request(`/api/applications/${server.id}/roles`, {
            method: 'POST',
            json: { roleIds: [serverRole.id] },
          })
        ).status,
      ).to.equal(201);
      resourceServer = await client.discovery(new URL(`${running.baseUrl}/oidc`), server.id, server.secret, undefined, {
        execute: [client.allowInsecureRequests],
      });
      actor = await createUser(running, [], { name: 'Sam Support' }, ACTOR_PASSWORD);
      actorToken = await (await accountClient(running)).signIn(actor.username!, ACTOR_PASSWORD, 'openid');
    });
    after(async () => {
      await running.close();
      await receiver.close();
    });

    const exchange = (params: Record<string, string | undefined>) =>
      tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, ...params }, app);
    const reasoned = async (userId: string, reason: string) => {
      const res = await running.request('/api/subject-tokens', {
        method: 'POST',
        json: { userId, reason, context: { ticket: 'T-9' } },
      });
      expect(res.status).to.equal(201);
      return ((await res.json()) as { subjectToken: string }).subjectToken;
    };
    const introspect = (token: string) => client.tokenIntrospection(resourceServer, token);
    const revocations = async (after = 0) => {
      const res = await fetch(`${running.baseUrl}/api/impersonation-revocations?after=${after}`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${resourceServer.clientMetadata().client_id}:${resourceServer.clientMetadata().client_secret}`).toString('base64')}`,
        },
      });
      expect(res.status).to.equal(200);
      return res.json() as Promise<{ revocations: Array<{ impersonationId: string; cursor: number }>; next: number }>;
    };
    const deliveries = (event: string, impersonationId: string) =>
      receiver
        .requests('/impersonations')
        .map((request) => verifyDelivery(request, hook.signingKey))
        .filter((payload) => payload.event === event && payload.impersonationId === impersonationId);

    it('records each exchange as an impersonation its token names, capped in lifetime, listed and filtered', async () => {
      const user = await createUser(running);
      const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, app.secret, undefined, {
        execute: [client.allowInsecureRequests],
      });
      const response = await client.genericGrantRequest(config, GRANT, {
        subject_token: await reasoned(user.id, 'Ticket SUP-7: checkout fails'),
        subject_token_type: AT,
        resource: INDICATOR,
        actor_token: actorToken,
        actor_token_type: AT,
      });
      expect(response.expires_in).to.equal(MAX_TTL);
      const claims = decodeJwt(response.access_token);
      expect(claims.exp! - claims.iat!).to.equal(MAX_TTL);
      expect(claims.impersonation_id).to.be.a('string');

      const listed = await running.request(`/api/impersonations?userId=${user.id}`);
      expect(listed.headers.get('total-number')).to.equal('1');
      const [record] = (await listed.json()) as Impersonation[];
      expect(record).to.include({
        id: claims.impersonation_id,
        userId: user.id,
        applicationId: app.id,
        actorUserId: actor.id,
        reason: 'Ticket SUP-7: checkout fails',
        resource: INDICATOR,
        status: 'active',
        revokedAt: null,
        scope: '',
      });
      expect(record!.expiresAt).to.equal(claims.exp! * 1000);
      expect(record!.expiresAt - record!.issuedAt).to.be.within((MAX_TTL - 1) * 1000, MAX_TTL * 1000);
      expect(record).not.to.have.property('context');
      expect(await (await running.request(`/api/impersonations/${record!.id}`)).json()).to.deep.equal(record);
      expect((await running.request('/api/impersonations/nope')).status).to.equal(404);

      // Its subject token's trail is in the log under the same reference.
      const log = (await (
        await running.request(`/api/impersonation-logs?subjectTokenRef=${record!.subjectTokenRef}`)
      ).json()) as Array<{ type: string }>;
      expect(log.map((entry) => entry.type)).to.have.members(['SubjectToken.Created', 'TokenExchange.Succeeded']);

      for (const [query, count] of [
        [`actorId=${actor.id}&userId=${user.id}`, 1],
        [`applicationId=${app.id}&userId=${user.id}`, 1],
        [`status=active&userId=${user.id}`, 1],
        [`status=revoked&userId=${user.id}`, 0],
        [`status=ended&userId=${user.id}`, 0],
        ['actorId=nobody', 0],
      ] as const) {
        const res = await running.request(`/api/impersonations?${query}`);
        expect(res.headers.get('total-number'), query).to.equal(String(count));
      }
      expect((await running.request('/api/impersonations?status=paused')).status).to.equal(400);

      // A userinfo token is capped and named too: the claim is in what introspection says of it.
      const opaque = await exchange({ subject_token: await subjectToken(running, user.id), scope: 'openid' });
      expect(opaque.body.expires_in).to.equal(MAX_TTL);
      const page = await running.request(`/api/impersonations?userId=${user.id}&page=1&page_size=1`);
      expect(page.headers.get('total-number')).to.equal('2');
      const [newest] = (await page.json()) as Impersonation[];
      expect(newest!.resource).to.equal(null);

      const [delivered] = await eventually(() => {
        const found = deliveries('User.Impersonated', record!.id);
        return found.length ? found : undefined;
      });
      expect(delivered).to.include({
        userId: user.id,
        applicationId: app.id,
        actorUserId: actor.id,
        reason: 'Ticket SUP-7: checkout fails',
        resource: INDICATOR,
        expiresAt: new Date(record!.expiresAt).toISOString(),
      });
    });

    it('revoking one impersonation ends its tokens at introspection, userinfo and the Account API, and announces it', async () => {
      const user = await createUser(running);
      const jwt = (await exchange({ subject_token: await reasoned(user.id, 'audit'), resource: INDICATOR })).body
        .access_token as string;
      const opaque = (await exchange({ subject_token: await subjectToken(running, user.id), scope: 'openid profile' }))
        .body.access_token as string;
      const jwtId = decodeJwt(jwt).impersonation_id as string;

      const seen = await introspect(jwt);
      expect(seen).to.include({
        active: true,
        sub: user.id,
        client_id: app.id,
        aud: INDICATOR,
        impersonation_id: jwtId,
      });
      expect(
        (await fetch(`${running.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${opaque}` } })).status,
      ).to.equal(200);
      expect((await running.request('/api/my-account', { token: opaque })).status).to.equal(200);
      const opaqueId = (await introspectAsClient(running, app, opaque)).impersonation_id as string;
      expect(opaqueId).to.be.a('string').and.not.equal(jwtId);

      const { next: before } = await revocations();
      for (const id of [jwtId, opaqueId]) {
        const revoked = await running.request(`/api/impersonations/${id}/revoke`, { method: 'POST' });
        expect(revoked.status).to.equal(200);
        expect(await revoked.json()).to.include({ id, status: 'revoked' });
      }

      expect(await introspect(jwt)).to.deep.equal({ active: false });
      const ended = await running.request(`/api/impersonations?userId=${user.id}&status=ended`);
      expect(ended.headers.get('total-number')).to.equal('2');
      expect(
        (await running.request(`/api/impersonations?userId=${user.id}&status=active`)).headers.get('total-number'),
      ).to.equal('0');
      expect((await introspectAsClient(running, app, opaque)).active).to.equal(false);
      expect(
        (await fetch(`${running.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${opaque}` } })).status,
      ).to.equal(401);
      const account = await running.request('/api/my-account', { token: opaque });
      expect(account.status).to.equal(401);
      expect(((await account.json()) as { code: string }).code).to.equal('auth.unauthorized');

      // A second revoke changes nothing and announces nothing again.
      expect(
        await (await running.request(`/api/impersonations/${jwtId}/revoke`, { method: 'POST' })).json(),
      ).to.include({ status: 'revoked' });
      const listing = await revocations(before);
      expect(listing.revocations.map((entry) => entry.impersonationId)).to.deep.equal([jwtId]);
      expect((await revocations(listing.next)).revocations).to.deep.equal([]);

      const [announced] = await eventually(() => {
        const found = deliveries('Impersonation.Revoked', jwtId);
        return found.length ? found : undefined;
      });
      expect(announced).to.include({
        userId: user.id,
        applicationId: app.id,
        resource: INDICATOR,
        revokedBy: 'test-admin',
      });
      await eventually(() => deliveries('Impersonation.Revoked', opaqueId).length === 1);
      expect(deliveries('Impersonation.Revoked', jwtId)).to.have.length(1);
    });

    it("revoking a user's impersonations voids their subject tokens not yet exchanged", async () => {
      const user = await createUser(running);
      const other = await createUser(running);
      const used = (await exchange({ subject_token: await subjectToken(running, user.id), resource: INDICATOR })).body
        .access_token as string;
      const unused = await subjectToken(running, user.id);
      const othersToken = await subjectToken(running, other.id);

      const res = await running.request(`/api/users/${user.id}/impersonations/revoke`, { method: 'POST' });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as Impersonation[]).map((record) => record.id)).to.deep.equal([
        decodeJwt(used).impersonation_id,
      ]);

      expect((await introspect(used)).active).to.equal(false);
      const refused = await exchange({ subject_token: unused, resource: INDICATOR });
      expect([refused.status, refused.body.error]).to.deep.equal([400, 'invalid_request']);
      expect(
        (await exchange({ subject_token: othersToken, resource: INDICATOR })).status,
        "another user's token",
      ).to.equal(200);
      // A subject token created after the kill switch works.
      expect(
        (await exchange({ subject_token: await subjectToken(running, user.id), resource: INDICATOR })).status,
      ).to.equal(200);
      expect((await running.request('/api/users/nobody/impersonations/revoke', { method: 'POST' })).status).to.equal(
        404,
      );
    });

    it(`no token of ${CONCURRENT} exchanges running beside a user's revocation is active once it returned`, async () => {
      const user = await createUser(running);
      const tokens = await Promise.all(Array.from({ length: CONCURRENT }, () => subjectToken(running, user.id)));
      let completed = 0;
      let started!: () => void;
      const someDone = new Promise<void>((resolve) => {
        started = resolve;
      });
      const exchanges = tokens.map(async (token) => {
        const result = await exchange({ subject_token: token, resource: INDICATOR });
        if (++completed === 5) started();
        return result;
      });
      // The revocation starts once a few exchanges have finished, while the others are in flight.
      await someDone;
      const revocation = await running.request(`/api/users/${user.id}/impersonations/revoke`, { method: 'POST' });
      expect(revocation.status).to.equal(200);
      const results = await Promise.all(exchanges);
      expect(results.filter((result) => result.status >= 500)).to.have.length(0);
      // Whatever each exchange answered, and whenever: no token it issued is active now.
      const issued = results.filter((result) => result.status === 200);
      for (const result of results.filter((r) => r.status !== 200))
        expect(result.body.error).to.equal('invalid_request');
      const answers = await Promise.all(issued.map((result) => introspect(result.body.access_token as string)));
      expect(
        answers.filter((answer) => answer.active),
        'active tokens after the revoke returned',
      ).to.have.length(0);
      const active = await running.request(`/api/impersonations?userId=${user.id}&status=active`);
      expect(active.headers.get('total-number')).to.equal('0');
    });

    it('the revocation listing is for resource servers only', async () => {
      const bare = await fetch(`${running.baseUrl}/api/impersonation-revocations`);
      expect(bare.status).to.equal(401);
      const wrong = await fetch(`${running.baseUrl}/api/impersonation-revocations`, {
        headers: { authorization: `Basic ${Buffer.from(`${app.id}:wrong`).toString('base64')}` },
      });
      expect(wrong.status).to.equal(401);
      // The exchanging application serves no API: it is no resource server.
      const notServer = await fetch(`${running.baseUrl}/api/impersonation-revocations`, {
        headers: { authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}` },
      });
      expect(notServer.status).to.equal(403);
      expect(((await notServer.json()) as { code: string }).code).to.equal('auth.not_a_resource_server');
    });
  });
}
