import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { totpCode } from '../support/mfa.ts';

/** A support team's view of a user's second factors: list without secrets, set up, remove; deleting the user cleans up. */
describe("management API: a user's second factors", () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  async function call(path: string, method = 'GET', body?: unknown) {
    const res = await running.request(path, { method, json: body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  it("imports an existing secret, lists factors in Logto's shape without any secret, and removes one", async () => {
    const user = await createUser(running);
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const created = await call(`/api/users/${user.id}/mfa-verifications`, 'POST', { type: 'Totp', secret });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ type: 'Totp', secret });
    const codes = await call(`/api/users/${user.id}/mfa-verifications`, 'POST', { type: 'BackupCode' });
    expect(codes.body.codes).to.have.length(10);
    expect(
      await running.service.core.mfa.verifyTotp(user.id, totpCode(secret)),
      'the imported secret is the one stored',
    ).to.equal(true);

    const listed = await call(`/api/users/${user.id}/mfa-verifications`);
    expect(listed.status).to.equal(200);
    expect(listed.body.map((factor: { type: string }) => factor.type)).to.deep.equal(['Totp', 'BackupCode']);
    expect(Object.keys(listed.body[0]).sort()).to.deep.equal(['createdAt', 'id', 'lastUsedAt', 'type']);
    expect(Date.parse(listed.body[0].createdAt)).to.be.a('number').and.not.NaN;
    expect(listed.body[1]).to.include({ remainCodes: 10 });
    const text = JSON.stringify(listed.body);
    expect(text).not.to.include(secret);
    for (const code of codes.body.codes) expect(text).not.to.include(code);

    expect((await call(`/api/users/${user.id}/mfa-verifications/${created.body.id}`, 'DELETE')).status).to.equal(204);
    expect((await call(`/api/users/${user.id}/mfa-verifications`)).body).to.have.length(1);
    const again = await call(`/api/users/${user.id}/mfa-verifications/${created.body.id}`, 'DELETE');
    expect(again.status).to.equal(404);
    expect(again.body.code).to.equal('entity.not_exists_with_id');
  });

  it('answers an unknown user with 404, and deleting a user deletes their factors', async () => {
    const unknown = await call('/api/users/nobody/mfa-verifications');
    expect(unknown.status).to.equal(404);
    const user = await createUser(running);
    expect((await call(`/api/users/${user.id}/mfa-verifications`, 'POST', { type: 'Totp' })).status).to.equal(201);
    expect((await call(`/api/users/${user.id}`, 'DELETE')).status).to.equal(204);
    expect(await running.service.records.mfaVerifications.listOf(user.id)).to.deep.equal([]);
  });
});
