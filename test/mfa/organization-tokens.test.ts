import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * Organization `isMfaRequired` (as Logto enforces it): an organization token is refused to a member without a
 * second factor, and given once they have one; setting it is accepted at creation and update.
 */
describe('organization isMfaRequired', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };

  before(async () => {
    running = await startService();
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
  });
  after(() => running.close());

  async function call(path: string, method: string, body?: unknown) {
    const res = await running.request(path, { method, json: body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  const exchange = async (userId: string, organizationId: string) =>
    tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token_type: AT,
        subject_token: await subjectToken(running, userId),
        organization_id: organizationId,
      },
      app,
    );

  it('is stored at creation and update', async () => {
    const created = await call('/api/organizations', 'POST', { name: 'Needs MFA', isMfaRequired: true });
    expect(created.status).to.equal(201);
    expect(created.body.isMfaRequired).to.equal(true);
    const patched = await call(`/api/organizations/${created.body.id}`, 'PATCH', { isMfaRequired: false });
    expect(patched.body.isMfaRequired).to.equal(false);
  });

  it('refuses an organization token to a member without a second factor (access_denied), and gives it once they have one', async () => {
    const organization = (await call('/api/organizations', 'POST', { name: 'Vault', isMfaRequired: true })).body;
    const member = await createUser(running);
    await call(`/api/organizations/${organization.id}/users`, 'POST', { userIds: [member.id] });
    const refused = await exchange(member.id, organization.id);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ error: 'access_denied' });
    expect(String(refused.body.error_description)).to.match(/requires MFA/);

    const enrolled = await call(`/api/users/${member.id}/mfa-verifications`, 'POST', { type: 'Totp' });
    expect(enrolled.status).to.equal(201);
    const granted = await exchange(member.id, organization.id);
    expect(granted.status, JSON.stringify(granted.body)).to.equal(200);

    const removed = await call(`/api/users/${member.id}/mfa-verifications/${enrolled.body.id}`, 'DELETE');
    expect(removed.status).to.equal(204);
    expect((await exchange(member.id, organization.id)).body.error, 'removing the factor withdraws access').to.equal(
      'access_denied',
    );

    await call(`/api/organizations/${organization.id}`, 'PATCH', { isMfaRequired: false });
    expect((await exchange(member.id, organization.id)).status).to.equal(200);
  });
});
