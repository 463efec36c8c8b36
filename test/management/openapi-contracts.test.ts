import { expect } from 'chai';
import { ALL_EVENTS } from '../../lib/events/catalogue.ts';
import { MANAGEMENT_EVENTS } from '../../lib/events/management-events.ts';
import { startHarness, type Harness } from '../support/management/harness.ts';

type Operation = {
  summary: string;
  description?: string;
  'x-webhook-events'?: string[];
  responses: Record<string, any>;
};

describe('OpenAPI document: events and response contracts', () => {
  let h: Harness;
  let operations: Map<string, Operation>;
  before(async () => {
    h = await startHarness();
    const swagger = await h.api('GET', '/swagger.json');
    operations = new Map();
    for (const [path, byMethod] of Object.entries(swagger.body.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(byMethod)) {
        operations.set(`${method.toUpperCase()} ${path.replace(/^\/api/, '').replace(/\{(\w+)\}/g, ':$1')}`, operation);
      }
    }
  });
  after(() => h.close());

  it('lists the webhook events of each operation from the route → event map, and nowhere else', () => {
    for (const [route, rules] of Object.entries(MANAGEMENT_EVENTS)) {
      const operation = operations.get(route);
      const names = rules.map((rule) => rule.event);
      expect(operation?.['x-webhook-events'], route).to.deep.equal(names);
      expect(operation?.description, route).to.match(/^Webhook events: /);
      for (const name of names) expect(operation?.description, route).to.include(name);
    }
    const withEvents = [...operations].filter(([, operation]) => operation['x-webhook-events']).map(([route]) => route);
    expect(withEvents.sort()).to.deep.equal(Object.keys(MANAGEMENT_EVENTS).sort());
    expect(operations.get('POST /roles')?.description).to.equal(
      'Webhook events: Role.Created; Role.Scopes.Updated (when scopeIds is non-empty).',
    );
    expect(operations.get('DELETE /users/:userId')?.description).to.equal(
      'Webhook events: User.Deleted (data is the entity as it was before the delete).',
    );
  });

  it('names no event in any summary', () => {
    const naming = [...operations]
      .filter(([, operation]) => ALL_EVENTS.some((name) => operation.summary.includes(name)))
      .map(([route, operation]) => `${route}: ${operation.summary}`);
    expect(naming).to.deep.equal([]);
  });

  it('has response schemas that drop unknown fields rather than pass them through', () => {
    const open: string[] = [];
    const visit = (schema: unknown, where: string): void => {
      if (Array.isArray(schema))
        schema.forEach((item, index) => {
          visit(item, `${where}[${index}]`);
        });
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      if (node.properties && node.additionalProperties !== false) open.push(where);
      for (const [key, value] of Object.entries(node)) visit(value, `${where}.${key}`);
    };
    for (const [route, operation] of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        visit(response?.content?.['application/json']?.schema, `${route} ${status}`);
      }
    }
    expect(open).to.deep.equal([]);
  });
});
