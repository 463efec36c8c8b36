import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';

const invitee = () => `invitee-${randomBytes(4).toString('hex')}@example.com`;
const inAWeek = () => Date.now() + 7 * 86_400_000;

describe('organization invitation emails', () => {
  const rejecting = new Set<string>();
  let mailbox: Mailbox;
  let running: RunningService;
  let organizationId: string;
  let inviterId: string;

  before(async () => {
    mailbox = await startMailbox({ rejects: (to) => rejecting.has(to) });
    running = await startService({
      env: { SMTP_URL: mailbox.url },
      messageTemplates: { OrganizationInvitation: { subject: 'Join {{organizationName}} ({{locale}})' } },
    });
    const organization = await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme <R&D>' } });
    expect(organization.status).to.equal(201);
    organizationId = ((await organization.json()) as { id: string }).id;
    inviterId = (await createUser(running, [], { name: 'Ada Lovelace' })).id;
  });
  after(async () => {
    await running?.close();
    await mailbox?.close();
  });

  const invite = (body: Record<string, unknown>) =>
    running.request('/api/organization-invitations', {
      method: 'POST',
      json: { organizationId, expiresAt: inAWeek(), ...body },
    });

  it('emails the invitee the OrganizationInvitation template when messagePayload has a link', async () => {
    const to = invitee();
    const link = `https://app.example.com/invite?token=${randomBytes(6).toString('hex')}&x=<y>`;
    const response = await invite({ invitee: to.toUpperCase(), inviterId, messagePayload: { link, locale: 'en-GB' } });
    expect(response.status, await response.clone().text()).to.equal(201);
    expect(await response.json()).to.include({ invitee: to, status: 'Pending' });

    const mail = await mailbox.waitFor(to);
    expect(mail.to).to.deep.equal([to]);
    expect(mail.subject, 'payload fields are placeholders').to.equal('Join Acme <R&D> (en-GB)');
    expect(mail.text).to.include('Acme <R&D> by Ada Lovelace');
    expect(mail.text).to.include(link);
    expect(mail.html).to.include('Acme &lt;R&amp;D&gt;');
    expect(mail.html).to.include(`href="${link.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}"`);
  });

  it('sends nothing with messagePayload false, or without messagePayload', async () => {
    const silent = invitee();
    expect((await invite({ invitee: silent, messagePayload: false })).status).to.equal(201);
    const omitted = invitee();
    expect((await invite({ invitee: omitted })).status).to.equal(201);
    // Sends complete before the response, so anything sent would be here already.
    expect(mailbox.messages(silent)).to.have.length(0);
    expect(mailbox.messages(omitted)).to.have.length(0);
  });

  it('resends with POST /:id/message (204), without an inviter line when there is no inviter', async () => {
    const to = invitee();
    const created = await invite({ invitee: to, messagePayload: false });
    const { id } = (await created.json()) as { id: string };
    const resent = await running.request(`/api/organization-invitations/${id}/message`, {
      method: 'POST',
      json: { link: 'https://app.example.com/accept', note: 42 },
    });
    expect(resent.status, await resent.clone().text()).to.equal(204);
    const mail = await mailbox.waitFor(to);
    expect(mail.text).to.include('join Acme <R&D>.');
    expect(mail.text).to.include('https://app.example.com/accept');

    expect(
      (
        await running.request(`/api/organization-invitations/${id}/message`, {
          method: 'POST',
          json: { link: 'https://app.example.com/accept' },
        })
      ).status,
    ).to.equal(204);
    await mailbox.waitFor(to);
    expect(mailbox.messages(to)).to.have.length(2);
  });

  it('refuses to send an invitation that is no longer pending (422) or does not exist (404)', async () => {
    const to = invitee();
    const { id } = (await (await invite({ invitee: to })).json()) as { id: string };
    expect(
      (
        await running.request(`/api/organization-invitations/${id}/status`, {
          method: 'PUT',
          json: { status: 'Revoked' },
        })
      ).status,
    ).to.equal(200);
    const revoked = await running.request(`/api/organization-invitations/${id}/message`, {
      method: 'POST',
      json: { link: 'https://a.example.com' },
    });
    expect(revoked.status).to.equal(422);
    expect(await revoked.json()).to.include({ code: 'organization_invitation.not_pending' });
    const unknown = await running.request('/api/organization-invitations/nope/message', {
      method: 'POST',
      json: { link: 'https://a.example.com' },
    });
    expect(unknown.status).to.equal(404);
    expect(mailbox.messages(to)).to.have.length(0);
  });

  it('refuses payloads it could not act on with 400 guard.invalid_input, and keeps no invitation', async () => {
    const to = invitee();
    const payloads: unknown[] = [
      {},
      { link: 'javascript:alert(1)' },
      { link: '/relative' },
      { link: 'https://a.example.com', nested: { x: 1 } },
      { link: 'https://a.example.com', 'bad name': 'x' },
      true,
      'https://a.example.com',
    ];
    for (const messagePayload of payloads) {
      const response = await invite({ invitee: to, messagePayload });
      expect(response.status, JSON.stringify(messagePayload)).to.equal(400);
      expect(await response.json()).to.include({ code: 'guard.invalid_input' });
    }
    const list = await running.request(`/api/organization-invitations?invitee=${encodeURIComponent(to)}`);
    expect(await list.json()).to.deep.equal([]);
    expect(mailbox.messages(to)).to.have.length(0);
  });

  it('answers 502 connector.general when the server refuses the invitee, and keeps no invitation', async () => {
    const to = invitee();
    rejecting.add(to);
    const response = await invite({ invitee: to, messagePayload: { link: 'https://a.example.com' } });
    expect(response.status).to.equal(502);
    expect(await response.json()).to.include({ code: 'connector.general' });
    const list = await running.request(`/api/organization-invitations?invitee=${encodeURIComponent(to)}`);
    expect(await list.json()).to.deep.equal([]);
    rejecting.delete(to);
    expect(
      (await invite({ invitee: to, messagePayload: { link: 'https://a.example.com' } })).status,
      'a new attempt',
    ).to.equal(201);
  });

  it('documents the message payload and the resend route in the OpenAPI document', async () => {
    const document = (await (await running.request('/api/swagger.json')).json()) as {
      paths: Record<string, Record<string, any>>;
    };
    const create = document.paths['/api/organization-invitations']?.post;
    expect(JSON.stringify(create?.requestBody)).to.include('messagePayload');
    expect(document.paths['/api/organization-invitations/{id}/message']?.post?.responses).to.have.property('204');
  });
});
