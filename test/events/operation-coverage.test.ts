import { expect } from 'chai';
import { MANAGEMENT_EVENTS } from '../../lib/events/management-events.ts';
import { EVENT_CASES } from './management-operations/index.ts';
import { startHarness, type Harness } from '../support/management/harness.ts';

describe('operation → event table coverage', () => {
  it('has an event test for every route of the table', () => {
    const covered = new Set(EVENT_CASES.map((eventCase) => eventCase.route));
    const untested = Object.keys(MANAGEMENT_EVENTS).filter(
      (route) => !covered.has(route as keyof typeof MANAGEMENT_EVENTS),
    );
    expect(untested, 'routes of MANAGEMENT_EVENTS without an event test').to.deep.equal([]);
  });

  describe('against the running service', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(() => h.close());

    it('maps only routes that the service declares', async () => {
      const swagger = await h.api('GET', '/swagger.json');
      const declared = new Set<string>();
      for (const [path, operations] of Object.entries(swagger.body.paths as Record<string, object>)) {
        const route = path.replace(/^\/api/, '').replace(/\{(\w+)\}/g, ':$1');
        for (const method of Object.keys(operations)) declared.add(`${method.toUpperCase()} ${route}`);
      }
      const undeclared = Object.keys(MANAGEMENT_EVENTS).filter((key) => !declared.has(key));
      expect(undeclared, 'table rows that match no declared route').to.deep.equal([]);
    });
  });
});
