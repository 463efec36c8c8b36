import { expect } from 'chai';
import { json, uniqueName } from '../support/experience.ts';
import { startFederation, type Federation, type UpstreamUser } from '../support/connectors.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const domainName = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}.example`;

/**
 * An enterprise connector set up for one company's domains vouches for those addresses only: an identity provider
 * asserting (as verified) an address of another domain takes over no account, gets no address and joins no
 * organization by it.
 */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`Experience API: an enterprise SSO connector is trusted for its own domains only (${backend})`, () => {
    let f: Federation;
    let contoso: string;
    let fabrikam: string;
    let connectorId: string;

    before(async () => {
      f = await startFederation({ REDIS_URL: backend === 'redis' ? REDIS_URL : undefined });
      contoso = domainName('contoso');
      fabrikam = domainName('fabrikam');
      const created = await f.h.running.request('/api/sso-connectors', {
        method: 'POST',
        json: {
          providerName: 'OIDC',
          connectorName: uniqueName('Contoso'),
          domains: [contoso],
          syncProfile: true,
          config: { clientId: f.client.id, clientSecret: f.client.secret, issuer: `${f.upstream.baseUrl}/oidc` },
        },
      });
      expect(created.status).to.equal(201);
      connectorId = (await json(created)).id;
    });
    after(() => f.close());

    /** A sign-in through the Contoso connector, the upstream asserting `person`'s (verified) email. */
    const viaConnector = (person: UpstreamUser) => f.verifiedThrough('sso', connectorId, person);

    it('does not link or sign in the existing account of an address outside its domains (404 user.identity_not_exist)', async () => {
      const boss = await f.upstreamUser(`${uniqueName('boss')}@${fabrikam}`);
      const existing = await json(
        f.h.running.request('/api/users', { method: 'POST', json: { primaryEmail: boss.email } }),
      );
      const { client, verificationId } = await viaConnector(boss);
      const identified = await client.api('POST', '/identification', { verificationId });
      expect(identified.status, JSON.stringify(identified.body)).to.equal(404);
      expect(identified.body.code).to.equal('user.identity_not_exist');
      expect(identified.body.data?.relatedUser, 'no related account is named either').to.equal(undefined);
      expect((await client.api('POST', '/submit')).status).to.equal(404);
      const stored = await json(f.h.running.request(`/api/users/${existing.id}?includeSsoIdentities=true`));
      expect(stored.ssoIdentities).to.deep.equal([]);
    });

    it('registers an address outside its domains without that address and without the JIT organization of its domain', async () => {
      const organization = await json(
        f.h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('fabrikam') } }),
      );
      const jit = await f.h.running.request(`/api/organizations/${organization.id}/jit/email-domains`, {
        method: 'POST',
        json: { emailDomain: fabrikam },
      });
      expect(jit.status).to.equal(201);
      const stranger = await f.upstreamUser(`${uniqueName('new')}@${fabrikam}`);
      const { client, verificationId } = await viaConnector(stranger);
      expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(404);
      await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
      expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(201);
      const userId = (await client.submitForTokens()).claims()!.sub;
      const user = await json(f.h.running.request(`/api/users/${userId}?includeSsoIdentities=true`));
      expect(user.primaryEmail).to.equal(null);
      expect(user.ssoIdentities).to.have.length(1);
      const members = await json(f.h.running.request(`/api/organizations/${organization.id}/users`));
      expect(members.map((member: { id: string }) => member.id)).not.to.include(userId);

      // The identity still signs in the account it is linked to.
      const again = await viaConnector(stranger);
      await again.client.ok('POST', '/identification', { verificationId: again.verificationId });
      expect((await again.client.submitForTokens()).claims()!.sub).to.equal(userId);
    });

    it('control: an address of its own domain still links the existing account and takes its email on registration', async () => {
      const employee = await f.upstreamUser(`${uniqueName('emp')}@${contoso}`);
      const existing = await json(
        f.h.running.request('/api/users', { method: 'POST', json: { primaryEmail: employee.email } }),
      );
      const linked = await viaConnector(employee);
      await linked.client.ok('POST', '/identification', { verificationId: linked.verificationId });
      expect((await linked.client.submitForTokens()).claims()!.sub).to.equal(existing.id);

      const newcomer = await f.upstreamUser(`${uniqueName('new')}@${contoso}`);
      const registered = await viaConnector(newcomer);
      await registered.client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
      await registered.client.ok('POST', '/identification', { verificationId: registered.verificationId });
      const userId = (await registered.client.submitForTokens()).claims()!.sub;
      expect((await json(f.h.running.request(`/api/users/${userId}`))).primaryEmail).to.equal(newcomer.email);
    });
  });
}
