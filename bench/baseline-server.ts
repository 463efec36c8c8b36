import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

/**
 * The baseline: a plain node-oidc-provider (the installed version, its default memory adapter) that serves
 * the benchmark's client-credentials grant exactly as the service does, an ES256 JWT access token for one
 * resource with one scope, and nothing else. It runs in its own process, like the service, and prints one
 * JSON line with its address and client once it listens.
 */
const BASELINE_RESOURCE = 'https://bench.example.com';
const CLIENT = { id: 'baseline-m2m', secret: 'baseline-m2m-secret-0123456789' };

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address() as { port: number };
const baseUrl = `http://127.0.0.1:${address.port}`;
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const provider = new Provider(`${baseUrl}/oidc`, {
  clients: [
    {
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      // The only key is ES256 (the provider's default for ID tokens is RS256, which it could not sign).
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'baseline' }] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => BASELINE_RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'read',
        audience: BASELINE_RESOURCE,
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
const callback = provider.callback();
// Mounted under /oidc as the service mounts its provider, so both answer the same request path.
server.on('request', (req, res) => {
  if (req.url?.startsWith('/oidc/')) {
    req.url = req.url.slice('/oidc'.length);
    callback(req, res);
  } else {
    res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 60_000;
process.stdout.write(`${JSON.stringify({ baseUrl, clientId: CLIENT.id, clientSecret: CLIENT.secret })}\n`);
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
