import { expect } from 'chai';
import {
  json,
  startExperienceHarness,
  uniqueName,
  type ExperienceClient,
  type ExperienceHarness,
} from '../support/experience.ts';
import { API_CALLBACK, listen, skipRequiredIdentifiers } from '../support/connectors.ts';

/**
 * A provider's picture becomes the account's `avatar` (and relying parties' `picture`) only when it is an http(s)
 * URL: at registration and at every profile sync. An OAuth 2.0 provider of the test's own answers the userinfo.
 */
describe("Connectors: a provider's picture is taken only when it is an http(s) URL", () => {
  let h: ExperienceHarness;
  let provider: Awaited<ReturnType<typeof listen>>;
  let picture = '';
  const subject = uniqueName('person');

  before(async () => {
    h = await startExperienceHarness();
    await skipRequiredIdentifiers(h.running);
    provider = await listen((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify(
          req.url === '/token'
            ? { access_token: 'provider-access-token', token_type: 'Bearer' }
            : { id: subject, name: 'Picture Person', avatar: picture },
        ),
      );
    });
  });
  after(async () => {
    await h.close();
    await provider.close();
  });

  async function connector() {
    const res = await h.running.request('/api/connectors', {
      method: 'POST',
      json: {
        connectorId: 'oauth2',
        syncProfile: true,
        metadata: { target: uniqueName('pictures'), name: { en: 'Pictures' } },
        config: {
          clientId: 'downstream',
          clientSecret: 'connector-secret-1',
          authorizationEndpoint: `${provider.origin}/auth`,
          tokenEndpoint: `${provider.origin}/token`,
          userInfoEndpoint: `${provider.origin}/me`,
        },
      },
    });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).to.equal(201);
    return body as { id: string };
  }

  async function verified(connectorId: string): Promise<{ client: ExperienceClient; verificationId: string }> {
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { verificationId } = await client.ok('POST', `/verification/social/${connectorId}/authorization-uri`, {
      state: 'pictures-state',
      redirectUri: API_CALLBACK,
    });
    await client.ok('POST', `/verification/social/${connectorId}/verify`, {
      verificationId,
      connectorData: { code: 'a-code', state: 'pictures-state' },
    });
    return { client, verificationId };
  }

  /** The `picture` a relying party reads at the userinfo endpoint with the tokens it got. */
  async function pictureOf(client: ExperienceClient): Promise<unknown> {
    const tokens = await client.submitForTokens();
    const res = await fetch(`${h.running.baseUrl}/oidc/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { picture?: unknown }).picture;
  }

  it('registers without a javascript: picture, then never syncs one over an http(s) picture', async () => {
    const { id } = await connector();
    picture = 'javascript:alert(document.domain)';
    const first = await verified(id);
    expect(
      (await first.client.api('POST', '/identification', { verificationId: first.verificationId })).status,
    ).to.equal(404);
    await first.client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    await first.client.ok('POST', '/identification', { verificationId: first.verificationId });
    expect(await pictureOf(first.client)).to.equal(undefined);
    const [user] = await json(h.running.request(`/api/users?search=${encodeURIComponent('Picture Person')}`));
    expect(user.avatar).to.equal(null);

    picture = 'https://pics.example/person.png';
    const second = await verified(id);
    await second.client.ok('POST', '/identification', { verificationId: second.verificationId });
    expect(await pictureOf(second.client), 'an http(s) picture syncs').to.equal(picture);

    picture = 'data:text/html,<script>alert(1)</script>';
    const third = await verified(id);
    await third.client.ok('POST', '/identification', { verificationId: third.verificationId });
    expect(await pictureOf(third.client)).to.equal('https://pics.example/person.png');
    expect((await json(h.running.request(`/api/users/${user.id}`))).avatar).to.equal('https://pics.example/person.png');
  });
});
