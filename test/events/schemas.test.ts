/**
 * Every event type's published JSON Schema (draft 2020-12), at GET /api/hook-events/:event/schema and in the OpenAPI
 * document's `webhooks`, checked with ajv (independent of the zod schemas they are generated from) against real
 * deliveries: a sample of every type through the test endpoint, and the data events of real management requests.
 * The experience tests check every delivery of their flows the same way (test/support/experience.ts), the
 * management operation tests every event of every route (test/support/management/event-case.ts).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { ALL_EVENTS, DATA_EVENTS } from '../../lib/events/catalogue.ts';
import { newId } from '../../lib/ids.ts';
import type { RunningService } from '../support/service.ts';
import { BACKENDS, bodyOf, createHook, getJson, startHookService, verifyDelivery } from '../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';

for (const backend of BACKENDS) {
  describe(`published event schemas (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    const schemas = new Map<string, Record<string, unknown>>();

    before(async () => {
      receiver = await Receiver.start();
      running = await startHookService(backend);
      for (const event of ALL_EVENTS) {
        const res = await fetch(`${running.baseUrl}/api/hook-events/${event}/schema`);
        expect(res.status, event).to.equal(200);
        schemas.set(event, (await res.json()) as Record<string, unknown>);
      }
    });
    after(async () => {
      await running?.close();
      await receiver?.close();
    });

    function expectValid(payload: Record<string, unknown>): void {
      const schema = schemas.get(String(payload.event));
      expect(schema, String(payload.event)).to.be.an('object');
      const validate = ajv.compile(schema!);
      expect(validate(payload), `${payload.event}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
    }

    it('publishes a draft 2020-12 schema per event, the same in the OpenAPI webhooks, and 404 for an unknown event', async () => {
      const openapi = await getJson(running, '/api/swagger.json');
      expect(Object.keys(openapi.webhooks).sort()).to.deep.equal([...ALL_EVENTS].sort());
      for (const [event, schema] of schemas) {
        expect(schema.$schema, event).to.equal('https://json-schema.org/draft/2020-12/schema');
        const { $schema: _dialect, ...body } = schema;
        expect(openapi.webhooks[event].post.requestBody.content['application/json'].schema, event).to.deep.equal(body);
      }
      const unknown = await fetch(`${running.baseUrl}/api/hook-events/User.Nope/schema`);
      expect(unknown.status).to.equal(404);
      expect((await bodyOf(unknown)).code).to.equal('entity.not_exists_with_id');
    });

    it('validates the test delivery of every event type, and refuses a payload missing a field or with one too many', async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/unused') } });
      const res = await running.request(`/api/hooks/${hook.id}/test`, {
        method: 'POST',
        json: { events: [...ALL_EVENTS], config: { url: receiver.url('/samples') } },
      });
      expect(res.status, await res.clone().text()).to.equal(204);
      const delivered = receiver.requests('/samples').map((request) => verifyDelivery(request, hook.signingKey));
      expect(delivered.map((payload) => payload.event)).to.deep.equal([...ALL_EVENTS]);
      for (const payload of delivered) expectValid(payload);

      const user = delivered.find((payload) => payload.event === 'User.Created')!;
      const { sequence: _sequence, ...unnumbered } = user;
      expect(ajv.compile(schemas.get('User.Created')!)(unnumbered), 'without sequence').to.equal(false);
      expect(ajv.compile(schemas.get('User.Created')!)({ ...user, extra: 1 }), 'with an unknown field').to.equal(false);
      expect(
        ajv.compile(schemas.get('User.Created')!)({ ...user, data: { ...user.data, isSuspended: 'no' } }),
        'a wrong type',
      ).to.equal(false);
    });

    it('validates the real deliveries of every data event type', async () => {
      const hook = await createHook(running, { events: [...DATA_EVENTS], config: { url: receiver.url('/real') } });
      const api = async (method: string, path: string, json?: unknown) => {
        const res = await running.request(`/api${path}`, { method, ...(json === undefined ? {} : { json }) });
        expect(res.status, `${method} ${path}: ${await res.clone().text()}`).to.be.within(200, 299);
        return res.status === 204 ? undefined : bodyOf(res);
      };
      const user = await api('POST', '/users', { username: `schema_${newId(6)}` });
      await api('PATCH', `/users/${user.id}`, { name: 'Schema' });
      await api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: true });
      const resource = await api('POST', '/resources', {
        name: 'schemas',
        indicator: `https://schemas-${newId(6)}.example.com`,
      });
      const scope = await api('POST', `/resources/${resource.id}/scopes`, { name: 'read' });
      await api('PATCH', `/resources/${resource.id}/scopes/${scope.id}`, { description: 'reads' });
      const role = await api('POST', '/roles', { name: `role_${newId(6)}`, description: 'r', scopeIds: [scope.id] });
      await api('PATCH', `/roles/${role.id}`, { description: 'changed' });
      await api('DELETE', `/roles/${role.id}`);
      const organizationScope = await api('POST', '/organization-scopes', { name: `os_${newId(6)}` });
      await api('PATCH', `/organization-scopes/${organizationScope.id}`, { description: 'd' });
      const organizationRole = await api('POST', '/organization-roles', {
        name: `or_${newId(6)}`,
        organizationScopeIds: [organizationScope.id],
      });
      await api('PATCH', `/organization-roles/${organizationRole.id}`, { description: 'd' });
      const organization = await api('POST', '/organizations', { name: 'Schema org' });
      await api('PATCH', `/organizations/${organization.id}`, { description: 'd' });
      await api('POST', `/organizations/${organization.id}/users`, { userIds: [user.id] });
      await api('DELETE', `/organizations/${organization.id}`);
      await api('DELETE', `/organization-roles/${organizationRole.id}`);
      await api('DELETE', `/organization-scopes/${organizationScope.id}`);
      await api('DELETE', `/resources/${resource.id}/scopes/${scope.id}`);
      await api('DELETE', `/users/${user.id}`);

      const delivered = await eventually(
        () => {
          const payloads = receiver.requests('/real').map((request) => verifyDelivery(request, hook.signingKey));
          return new Set(payloads.map((payload) => payload.event)).size === DATA_EVENTS.length && payloads;
        },
        { what: 'a delivery of every data event type' },
      );
      for (const payload of delivered) expectValid(payload);
    });
  });
}
