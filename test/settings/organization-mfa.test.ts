import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';

describe('organization isMfaRequired, while MFA does not exist', () => {
  let running: RunningService;
  let published: string[];

  before(async () => {
    running = await startService();
    published = [];
    running.service.core.bus.subscribe(async (events) => {
      published.push(...events.map((event) => String(event.event)));
    });
  });
  after(() => running.close());

  const send = (method: string, path: string, json: unknown) => running.request(`/api/organizations${path}`, { method, json });

  async function expectRefused(res: Response) {
    expect(res.status).to.equal(422);
    const body = await res.json() as { code: string; message: string };
    expect(body.code).to.equal('organization.mfa_not_supported');
    expect(body.message).to.match(/not available yet/);
  }

  it('refuses true at creation, and stores nothing', async () => {
    await expectRefused(await send('POST', '', { name: 'Needs MFA', isMfaRequired: true }));
    const list = await (await running.request('/api/organizations?q=Needs%20MFA')).json() as unknown[];
    expect(list).to.have.length(0);
    expect(published).not.to.include('Organization.Created');
  });

  it('accepts false, and refuses true on update without changing the organization', async () => {
    const created = await send('POST', '', { name: 'Plain', isMfaRequired: false });
    expect(created.status).to.equal(201);
    const { id } = await created.json() as { id: string };
    await expectRefused(await send('PATCH', `/${id}`, { name: 'Renamed', isMfaRequired: true }));
    const stored = await (await running.request(`/api/organizations/${id}`)).json() as Record<string, unknown>;
    expect(stored).to.include({ name: 'Plain', isMfaRequired: false });
    expect(published).not.to.include('Organization.Data.Updated');
    const patched = await send('PATCH', `/${id}`, { isMfaRequired: false });
    expect(patched.status).to.equal(200);
  });
});
