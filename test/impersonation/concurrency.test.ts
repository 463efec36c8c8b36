import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { GRANT, AT } from '../support/token-exchange.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONCURRENT = 100;

for (const backend of ['embedded', 'redis'] as const) {
  describe(`single use under concurrency (${backend})`, () => {
    let running: RunningService;
    before(async () => {
      running = await startService({ env: { REDIS_URL: backend === 'redis' ? REDIS_URL : undefined } });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
    });
    after(() => running.close());

    it(`${CONCURRENT} concurrent exchanges of one subject token give exactly one success and no 5xx`, async () => {
      await createResource(running, 'https://race.example.com', ['read']);
      const app = await createApplication(running, {
        type: 'Traditional',
        customClientMetadata: { allowTokenExchange: true },
      });
      const user = await createUser(running);
      const token = await subjectToken(running, user.id);
      const results = await Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          tokenRequest(
            running,
            {
              grant_type: GRANT,
              subject_token_type: AT,
              subject_token: token,
              resource: 'https://race.example.com',
            },
            app,
          ),
        ),
      );
      const statuses = results.map((result) => result.status);
      expect(statuses.filter((status) => status === 200)).to.have.length(1);
      expect(statuses.filter((status) => status >= 500)).to.have.length(0);
      for (const result of results.filter((r) => r.status !== 200)) {
        expect(result.status).to.equal(400);
        expect(result.body.error).to.equal('invalid_request');
      }
      // Refusals that read the subject token before it was spent are audited under its user too: up to 99 of them, so
      // the success is looked for on every page, whatever order they committed in.
      const logs: Array<{ type: string }> = [];
      for (const page of [1, 2]) {
        const res = await running.request(`/api/impersonation-logs?userId=${user.id}&page=${page}&page_size=100`);
        logs.push(...((await res.json()) as Array<{ type: string }>));
      }
      expect(logs.filter((log) => log.type === 'TokenExchange.Succeeded')).to.have.length(1);
    });
  });
}
