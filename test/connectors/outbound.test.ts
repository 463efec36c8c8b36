import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { createOutbound } from '../../lib/connectors/outbound.ts';
import { parseNetworks, type Resolver } from '../../lib/webhooks/destinations.ts';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';
import { API_CALLBACK, listen } from '../support/connectors.ts';

/**
 * An identity provider on loopback whose discovery document names its token endpoint at `tokenEndpoint` (its own
 * `/token` unless given), answered by `token`.
 */
async function identityProvider(
  options: { tokenEndpoint?: (origin: string) => string; token?: (res: ServerResponse) => void } = {},
) {
  const idp = await listen((req, res) => {
    const answer = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      answer({
        issuer: idp.origin,
        authorization_endpoint: `${idp.origin}/auth`,
        token_endpoint: options.tokenEndpoint?.(idp.origin) ?? `${idp.origin}/token`,
        jwks_uri: `${idp.origin}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    } else if (req.url === '/jwks') {
      answer({ keys: [] });
    } else if (req.url === '/token' && options.token) {
      options.token(res);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  return idp;
}

/** A social OIDC connector on `issuer`, and a sign-in through it up to the provider's callback (`state` as sent). */
async function signInThrough(h: ExperienceHarness, issuer: string, state: string) {
  const created = await h.running.request('/api/connectors', {
    method: 'POST',
    json: {
      connectorId: 'oidc',
      metadata: { target: uniqueName('idp'), name: { en: 'Identity provider' } },
      config: { clientId: 'downstream', clientSecret: 'connector-secret-1', issuer },
    },
  });
  const connector = await json(created);
  expect(created.status, JSON.stringify(connector)).to.equal(201);
  const client = h.client();
  await client.open(h.app);
  await client.ok('PUT', '', { interactionEvent: 'SignIn' });
  const { authorizationUri, verificationId } = await client.ok(
    'POST',
    `/verification/social/${connector.id}/authorization-uri`,
    {
      state,
      redirectUri: API_CALLBACK,
    },
  );
  const callback = (code: string) =>
    client.api('POST', `/verification/social/${connector.id}/verify`, {
      verificationId,
      connectorData: { code, state },
    });
  return { authorizationUri: authorizationUri as string, callback };
}

/** Stands for an internal service: it answers a token request as a token endpoint would refuse a code. */
const internalService = () =>
  listen((_req, res) => {
    res.statusCode = 400;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error: 'invalid_grant' }));
  });

describe('Connectors: endpoints a discovery document names reach no further than its issuer could', () => {
  describe('with the default settings', () => {
    let h: ExperienceHarness;
    before(async () => {
      h = await startExperienceHarness();
    });
    after(() => h.close());

    it('refuses an issuer on loopback whose token endpoint is on another origin (400 connector.invalid_config), sending it nothing', async () => {
      const internal = await internalService();
      const idp = await identityProvider({ tokenEndpoint: () => `${internal.origin}/token` });
      try {
        const sso = await h.running.request('/api/sso-connectors', {
          method: 'POST',
          json: {
            providerName: 'OIDC',
            connectorName: uniqueName('Internal'),
            domains: [`${uniqueName('d').replace('_', '-')}.example`],
            config: { clientId: 'downstream', clientSecret: 'connector-secret-1', issuer: idp.origin },
          },
        });
        const ssoBody = await json(sso);
        expect(sso.status, JSON.stringify(ssoBody)).to.equal(400);
        expect(ssoBody.code).to.equal('connector.invalid_config');
        expect(ssoBody.message).to.include('token_endpoint').and.include('CONNECTOR_ENDPOINT_NETWORKS');

        const social = await h.running.request('/api/connectors', {
          method: 'POST',
          json: {
            connectorId: 'oidc',
            metadata: { target: uniqueName('internal'), name: { en: 'Internal' } },
            config: { clientId: 'downstream', clientSecret: 'connector-secret-1', issuer: idp.origin },
          },
        });
        expect(social.status).to.equal(400);
        expect((await json(social)).code).to.equal('connector.invalid_config');
        expect(idp.requests.map((request) => request.path)).to.include('/.well-known/openid-configuration');
        expect(internal.requests, 'nothing reached the other origin').to.deep.equal([]);
      } finally {
        await idp.close();
        await internal.close();
      }
    });
  });

  describe("with the endpoint's network listed in CONNECTOR_ENDPOINT_NETWORKS", () => {
    let h: ExperienceHarness;
    before(async () => {
      h = await startExperienceHarness({ CONNECTOR_ENDPOINT_NETWORKS: '127.0.0.1/32' });
    });
    after(() => h.close());

    it('accepts the document and redeems the code at that endpoint', async () => {
      const tokenService = await internalService();
      const idp = await identityProvider({ tokenEndpoint: () => `${tokenService.origin}/token` });
      try {
        const { authorizationUri, callback } = await signInThrough(h, idp.origin, 'listed-network-state');
        expect(authorizationUri.startsWith(`${idp.origin}/auth`)).to.equal(true);
        const verified = await callback('code-from-the-idp');
        expect(verified.status, JSON.stringify(verified.body)).to.equal(401);
        expect(verified.body.code).to.equal('connector.social_auth_code_invalid');
        expect(tokenService.requests).to.have.length(1);
        expect(tokenService.requests[0]!.body).to.include('code=code-from-the-idp');
      } finally {
        await idp.close();
        await tokenService.close();
      }
    });
  });

  describe('the rule, over a resolver standing for DNS (nothing is connected to)', () => {
    const names: Record<string, string> = {
      'idp.example': '93.184.216.34',
      'api.idp.example': '93.184.216.35',
      'inward.example': '10.1.2.3',
      'loop.example': '127.0.0.1',
      'internal-idp.example': '10.0.0.5',
      'token.internal.example': '10.0.9.9',
    };
    const resolve: Resolver = async (hostname) => {
      const address = names[hostname];
      if (!address) throw new Error(`${hostname} does not resolve`);
      return [{ address, family: 4 }];
    };
    // The internal IdP itself is reachable as the operator configured it (its address listed for configured URLs).
    const outbound = createOutbound({
      deadlineMs: 1000,
      resolve,
      allowedNetworks: parseNetworks('10.0.0.5/32'),
      endpointNetworks: parseNetworks('10.0.9.0/24'),
    });

    it('a public issuer: public endpoints only, never loopback or the internal network', async () => {
      expect(await outbound.endpointProblem('https://idp.example', 'https://api.idp.example/token')).to.equal(
        undefined,
      );
      expect(await outbound.endpointProblem('https://idp.example', 'https://inward.example/token')).to.include(
        'not a public address',
      );
      expect(await outbound.endpointProblem('https://idp.example', 'http://127.0.0.1:8080/token')).to.include(
        'not a public address',
      );
      expect(await outbound.endpointProblem('https://idp.example', 'https://loop.example/token')).to.include(
        'not a public address',
      );
      // Even a listed network is out of a public issuer's reach.
      expect(await outbound.endpointProblem('https://idp.example', 'https://token.internal.example/token')).to.include(
        'not a public address',
      );
    });

    it('a non-public issuer: its own origin, or a listed network', async () => {
      expect(
        await outbound.endpointProblem('https://internal-idp.example/realm', 'https://internal-idp.example/token'),
      ).to.equal(undefined);
      expect(
        await outbound.endpointProblem('https://internal-idp.example', 'https://token.internal.example/token'),
      ).to.equal(undefined);
      expect(await outbound.endpointProblem('https://internal-idp.example', 'https://inward.example/token')).to.include(
        'CONNECTOR_ENDPOINT_NETWORKS',
      );
      expect(
        await outbound.endpointProblem('https://internal-idp.example', 'https://api.idp.example/token'),
      ).to.include('CONNECTOR_ENDPOINT_NETWORKS');
      expect(
        await outbound.endpointProblem('https://internal-idp.example', 'https://internal-idp.example:8443/token'),
        'another port is another origin',
      ).to.include('CONNECTOR_ENDPOINT_NETWORKS');
    });

    it('refuses a request to a refused endpoint before connecting (502 connector.upstream_unreachable)', async () => {
      const error = await outbound
        .forIssuer('https://idp.example')('https://inward.example/token', { method: 'POST', headers: {} })
        .then(
          () => undefined,
          (caught: unknown) => caught as { code?: string },
        );
      expect(error?.code).to.equal('connector.upstream_unreachable');
    });
  });
});

/**
 * Answers with a byte every 100 ms, 60 in all (never idle long enough for an idle timeout); `closedEarly` settles
 * true when the client hangs up before the last one.
 */
function trickle(res: ServerResponse): Promise<boolean> {
  const BYTES = 60;
  let sent = 0;
  res.setHeader('content-type', 'application/json');
  res.flushHeaders();
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (sent >= BYTES) {
        clearInterval(timer);
        res.end();
        resolve(false);
        return;
      }
      sent += 1;
      res.write(' ');
    }, 100);
    res.on('close', () => {
      clearInterval(timer);
      resolve(sent < BYTES);
    });
  });
}

describe('Connectors: every request to an upstream has a total deadline (OUTBOUND_TIMEOUT_MS)', () => {
  let h: ExperienceHarness;
  before(async () => {
    h = await startExperienceHarness({ OUTBOUND_TIMEOUT_MS: '500' });
  });
  after(() => h.close());

  it('cuts off a discovery document trickled one byte at a time (502 connector.upstream_unreachable)', async () => {
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    const drip = await listen((_req, res) => {
      closedEarly = trickle(res);
    });
    try {
      const created = await h.running.request('/api/sso-connectors', {
        method: 'POST',
        json: {
          providerName: 'OIDC',
          connectorName: uniqueName('Slow'),
          domains: [],
          config: { clientId: 'downstream', clientSecret: 'connector-secret-1', issuer: drip.origin },
        },
      });
      const body = await json(created);
      expect(created.status, JSON.stringify(body)).to.equal(502);
      expect(body.code).to.equal('connector.upstream_unreachable');
      expect(body.message).to.include('500 ms');
      expect(await closedEarly, 'the service hung up before the upstream finished its answer').to.equal(true);
    } finally {
      await drip.close();
    }
  });

  it('cuts off a token endpoint trickling its answer: the sign-in answers 502 instead of waiting', async () => {
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    const idp = await identityProvider({
      token: (res) => {
        closedEarly = trickle(res);
      },
    });
    try {
      const verified = await (await signInThrough(h, idp.origin, 'slow-token-state')).callback('a-code');
      expect(verified.status, JSON.stringify(verified.body)).to.equal(502);
      expect(verified.body.code).to.equal('connector.upstream_unreachable');
      expect(await closedEarly, 'the service hung up before the token endpoint finished its answer').to.equal(true);
    } finally {
      await idp.close();
    }
  });
});
