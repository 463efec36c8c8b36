import { expect } from 'chai';
import { withFakeClock } from '../support/clock.ts';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

describe('organizations management API', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('creates with Logto defaults and lists with q, pagination and Total-Number', async () => {
    const tag = unique('Globex');
    const created = await ok(h.api('POST', '/organizations', { name: `${tag} one` }));
    expect(created).to.include({ name: `${tag} one`, description: null, isMfaRequired: false });
    expect(created.customData).to.deep.equal({});
    await ok(h.api('POST', '/organizations', { name: `${tag} two` }));
    const page = await h.api('GET', `/organizations?q=${encodeURIComponent(tag)}&page_size=1&page=2`);
    expect(page.headers.get('total-number')).to.equal('2');
    expect(page.body.map((o: { name: string }) => o.name)).to.deep.equal([`${tag} two`]);
  });

  describe('member organization roles', () => {
    it('assigns User organization roles to members only, lists them with the members, and drops them with the membership', async () => {
      const organization = await fixtures(h).organization();
      const member = await fixtures(h).member(organization.id);
      const outsider = await fixtures(h).user();
      const [admin, viewer] = [await fixtures(h).organizationRole(), await fixtures(h).organizationRole()];
      const base = `/organizations/${organization.id}/users`;

      const notMember = await h.api('POST', `${base}/${outsider.id}/roles`, { organizationRoleIds: [admin.id] });
      expect(notMember.status).to.equal(422);
      expect(notMember.body.code).to.equal('organization.require_membership');
      const robot = await fixtures(h).organizationRole({ type: 'MachineToMachine' });
      expect((await h.api('POST', `${base}/${member.id}/roles`, { organizationRoleIds: [robot.id] })).status).to.equal(
        422,
      );
      expect(
        (await h.api('POST', `${base}/${member.id}/roles`, { organizationRoleIds: ['no-such-role'] })).status,
      ).to.equal(422);

      h.clear();
      expect(
        (await h.api('POST', `${base}/${member.id}/roles`, { organizationRoleIds: [admin.id, viewer.id] })).status,
      ).to.equal(201);
      expect((await h.api('PUT', `${base}/${member.id}/roles`, { organizationRoleIds: [viewer.id] })).status).to.equal(
        204,
      );
      expect(h.events, 'member role changes publish nothing').to.deep.equal([]);
      const roles = await ok(h.api('GET', `${base}/${member.id}/roles`));
      expect(roles.map((r: { id: string }) => r.id)).to.deep.equal([viewer.id]);
      const members = await ok(h.api('GET', base));
      expect(members[0].organizationRoles).to.deep.equal([{ id: viewer.id, name: viewer.name }]);
      const mine = await ok(h.api('GET', `/users/${member.id}/organizations`));
      expect(mine).to.deep.equal([{ ...organization, organizationRoles: [{ id: viewer.id, name: viewer.name }] }]);

      expect((await h.api('DELETE', `${base}/${member.id}/roles/${admin.id}`)).status).to.equal(404);
      await ok(h.api('DELETE', `${base}/${member.id}`));
      await ok(h.api('POST', base, { userIds: [member.id] }));
      expect(await ok(h.api('GET', `${base}/${member.id}/roles`))).to.deep.equal([]);
    });

    it('removes a deleted organization role from members', async () => {
      const organization = await fixtures(h).organization();
      const member = await fixtures(h).member(organization.id);
      const role = await fixtures(h).organizationRole();
      await ok(
        h.api('POST', `/organizations/${organization.id}/users/${member.id}/roles`, { organizationRoleIds: [role.id] }),
      );
      await ok(h.api('DELETE', `/organization-roles/${role.id}`));
      expect(await ok(h.api('GET', `/organizations/${organization.id}/users/${member.id}/roles`))).to.deep.equal([]);
    });
  });

  describe('JIT email domains', () => {
    it('adds (lower-cased), lists, replaces and removes domains', async () => {
      const organization = await fixtures(h).organization();
      const base = `/organizations/${organization.id}/jit/email-domains`;
      expect(await ok(h.api('POST', base, { emailDomain: 'Example.COM' }))).to.deep.equal({
        organizationId: organization.id,
        emailDomain: 'example.com',
      });
      expect((await h.api('POST', base, { emailDomain: 'example.com' })).status).to.equal(409);
      expect((await h.api('POST', base, { emailDomain: 'not a domain' })).status).to.equal(400);
      expect((await h.api('PUT', base, { emailDomains: ['a.example', 'b.example'] })).status).to.equal(204);
      const listed = await h.api('GET', `${base}?page_size=1`);
      expect(listed.headers.get('total-number')).to.equal('2');
      expect(listed.body).to.deep.equal([{ organizationId: organization.id, emailDomain: 'a.example' }]);
      expect((await h.api('DELETE', `${base}/a.example`)).status).to.equal(204);
      expect((await h.api('DELETE', `${base}/a.example`)).status).to.equal(404);
      expect((await h.api('GET', '/organizations/no-such-org/jit/email-domains')).status).to.equal(404);
    });
  });

  describe('deletion', () => {
    it('takes memberships, member roles, JIT domains and invitations with it', async () => {
      const organization = await fixtures(h).organization();
      const member = await fixtures(h).member(organization.id);
      await ok(h.api('POST', `/organizations/${organization.id}/jit/email-domains`, { emailDomain: 'gone.example' }));
      const invitation = await ok(
        h.api('POST', '/organization-invitations', {
          invitee: 'someone@gone.example',
          organizationId: organization.id,
          expiresAt: Date.now() + 60_000,
        }),
      );
      await ok(h.api('DELETE', `/organizations/${organization.id}`));
      expect(await ok(h.api('GET', `/users/${member.id}/organizations`))).to.deep.equal([]);
      expect((await h.api('GET', `/organization-invitations/${invitation.id}`)).status).to.equal(404);
      expect((await h.api('GET', `/organizations/${organization.id}/users`)).status).to.equal(404);
    });
  });

  describe('invitations', () => {
    it('creates a pending invitation with its roles, refuses a second pending one and a past expiry', async () => {
      const organization = await fixtures(h).organization();
      const role = await fixtures(h).organizationRole();
      const body = {
        invitee: 'Dana@Example.com',
        organizationId: organization.id,
        expiresAt: Date.now() + 60_000,
        organizationRoleIds: [role.id],
      };
      const created = await h.api('POST', '/organization-invitations', body);
      expect(created.status).to.equal(201);
      expect(created.body).to.include({
        invitee: 'dana@example.com',
        status: 'Pending',
        inviterId: null,
        acceptedUserId: null,
      });
      expect(created.body.organizationRoles).to.deep.equal([{ id: role.id, name: role.name }]);
      expect((await h.api('POST', '/organization-invitations', body)).status).to.equal(409);
      const past = await h.api('POST', '/organization-invitations', {
        ...body,
        invitee: 'x@example.com',
        expiresAt: Date.now() - 1,
      });
      expect(past.status).to.equal(400);
      expect(
        (await h.api('POST', '/organization-invitations', { ...body, organizationId: 'no-such-org' })).status,
      ).to.equal(422);
      const listed = await h.api('GET', `/organization-invitations?organizationId=${organization.id}`);
      expect(listed.headers.get('total-number')).to.equal('1');
      expect(listed.body[0].id).to.equal(created.body.id);
    });

    it("on acceptance makes the user a member with the invitation's roles", async () => {
      const organization = await fixtures(h).organization();
      const role = await fixtures(h).organizationRole();
      const email = `${unique('erin')}@example.com`;
      const user = await fixtures(h).user({ primaryEmail: email });
      const invitation = await ok(
        h.api('POST', '/organization-invitations', {
          invitee: email,
          organizationId: organization.id,
          expiresAt: Date.now() + 60_000,
          organizationRoleIds: [role.id],
        }),
      );
      const accepted = await ok(
        h.api('PUT', `/organization-invitations/${invitation.id}/status`, {
          status: 'Accepted',
          acceptedUserId: user.id,
        }),
      );
      expect(accepted).to.include({ status: 'Accepted', acceptedUserId: user.id });
      const roles = await ok(h.api('GET', `/organizations/${organization.id}/users/${user.id}/roles`));
      expect(roles.map((r: { id: string }) => r.id)).to.deep.equal([role.id]);
      const again = await h.api('PUT', `/organization-invitations/${invitation.id}/status`, { status: 'Revoked' });
      expect(again.status).to.equal(422);
      expect(again.body.code, "Logto's code").to.equal('request.invalid_input');
    });

    it('reads as Expired once past expiresAt and can no longer be accepted', async () => {
      const organization = await fixtures(h).organization();
      const email = `${unique('late')}@example.com`;
      const user = await fixtures(h).user({ primaryEmail: email });
      await withFakeClock(async (clock) => {
        const invitation = await ok(
          h.api('POST', '/organization-invitations', {
            invitee: email,
            organizationId: organization.id,
            expiresAt: Date.now() + 600_000,
          }),
        );
        const path = `/organization-invitations/${invitation.id}`;
        clock.advance(600_000 - 1);
        expect((await ok(h.api('GET', path))).status, 'a millisecond before expiresAt').to.equal('Pending');
        clock.advance(1);
        expect((await ok(h.api('GET', path))).status).to.equal('Expired');
        h.clear();
        const refused = await h.api('PUT', `${path}/status`, { status: 'Accepted', acceptedUserId: user.id });
        expect(refused.status).to.equal(422);
        expect(h.events).to.deep.equal([]);
        expect((await h.api('DELETE', path)).status).to.equal(204);
        expect((await h.api('DELETE', path)).status).to.equal(404);
      });
    });
  });

  describe('organization template', () => {
    it('lists roles with their scopes, and removes a deleted scope from roles', async () => {
      const [read, write] = [await fixtures(h).organizationScope(), await fixtures(h).organizationScope()];
      const role = await fixtures(h).organizationRole({ organizationScopeIds: [read.id, write.id] });
      const listed = await ok(h.api('GET', `/organization-roles?q=${role.name}`));
      expect(listed).to.have.length(1);
      const { scopes, resourceScopes, ...listedRole } = listed[0];
      expect(listedRole).to.deep.equal(role);
      expect(resourceScopes).to.deep.equal([]);
      expect(scopes).to.have.deep.members([
        { id: read.id, name: read.name },
        { id: write.id, name: write.name },
      ]);
      await ok(h.api('DELETE', `/organization-scopes/${read.id}`));
      expect(await ok(h.api('GET', `/organization-roles/${role.id}/scopes`))).to.deep.equal([write]);
    });
  });
});
