import { EVENT_CASES } from './management-operations/index.ts';
import { runEventCase } from '../support/management/event-case.ts';
import { startHarness, type Harness } from '../support/management/harness.ts';

describe('management API data events (one case per operation → event row)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const eventCase of EVENT_CASES) {
    it(`${eventCase.route}: ${eventCase.title}`, () => runEventCase(h, eventCase));
  }
});
