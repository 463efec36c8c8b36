/**
 * `npm run screenshots`: starts the service on a free loopback port with some example data, signs in to the
 * console in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) and writes the
 * images of docs/console.md: docs/images/console-applications.png and docs/images/console-deliveries.png.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { createIdentityService } from '../app/index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const IMAGES = join(ROOT, 'docs', 'images');
const ADMIN = { username: 'ops_admin', password: 'Copper-Kettle-93' };
const ADMIN_APP = { id: 'screenshots-admin', secret: 'screenshots-admin-secret-0123456789' };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An endpoint for the example webhook: most deliveries succeed, a few fail, as real endpoints do. */
let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received += 1;
    if (received % 4 === 3)
      response.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance window, try later');
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
});
const receiverUrl = await listen(receiver);

const server = createServer();
const baseUrl = await listen(server);
const service = await createIdentityService({
  env: {
    BASE_URL: baseUrl,
    ADMIN_CLIENT_ID: ADMIN_APP.id,
    ADMIN_CLIENT_SECRET: ADMIN_APP.secret,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_RETRY_DELAYS_MS: '60000',
  },
  logger: pino({ level: 'silent' }),
  print: () => {},
});
server.on('request', service.app.callback());

const tokenResponse = await fetch(`${baseUrl}/oidc/token`, {
  method: 'POST',
  headers: { authorization: `Basic ${Buffer.from(`${ADMIN_APP.id}:${ADMIN_APP.secret}`).toString('base64')}` },
  body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${baseUrl}/api`, scope: 'all' }),
});
const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? (undefined as T) : ((await res.json()) as T);
}

await api('POST', '/applications', {
  name: 'Support desk',
  type: 'Traditional',
  description: 'Impersonates customers for support tickets',
  oidcClientMetadata: { redirectUris: ['https://support.example.com/callback'] },
  customClientMetadata: { allowTokenExchange: true },
});
await api('POST', '/applications', {
  name: 'Storefront',
  type: 'SPA',
  oidcClientMetadata: { redirectUris: ['https://shop.example.com/callback'] },
});
await api('POST', '/applications', {
  name: 'Mobile app',
  type: 'Native',
  oidcClientMetadata: { redirectUris: ['com.example.shop:/callback'] },
});
await api('POST', '/applications', { name: 'Billing worker', type: 'MachineToMachine' });
await api('POST', '/applications', { name: 'Partner portal', type: 'Traditional', isThirdParty: true });
const hook = await api<{ id: string }>('POST', '/hooks', {
  name: 'CRM sync',
  events: ['User.Created', 'User.Data.Updated', 'PostSignIn'],
  config: { url: `${receiverUrl}/identity-events` },
});
for (const [username, name] of [
  ['ada', 'Ada Lovelace'],
  ['grace', 'Grace Hopper'],
  ['alan', 'Alan Turing'],
  ['edsger', 'Edsger Dijkstra'],
]) {
  const user = await api<{ id: string }>('POST', '/users', { username, name });
  await api('PATCH', `/users/${user.id}`, { primaryEmail: `${username}@example.com` });
}
// Every delivery has had its first attempt before the picture is taken.
for (let waited = 0; received < 8 && waited < 100; waited += 1)
  await new Promise((resolve) => setTimeout(resolve, 100));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  await page.goto(`${baseUrl}/console`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Username or email' }).fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('link', { name: 'Support desk', exact: true }).waitFor();
  await mkdir(IMAGES, { recursive: true });
  await page.screenshot({ path: join(IMAGES, 'console-applications.png') });

  await page.goto(`${baseUrl}/console/webhooks/${hook.id}`);
  // The section (its heading, the status filter and the table), not the table's own scrolling region.
  const deliveries = page
    .locator('section')
    .filter({ has: page.getByRole('heading', { name: 'Deliveries', exact: true }) });
  await deliveries.getByRole('row').filter({ hasText: 'Succeeded' }).first().waitFor();
  await page.mouse.move(0, 0);
  await deliveries.screenshot({ path: join(IMAGES, 'console-deliveries.png') });
  console.log(
    `wrote ${join('docs', 'images', 'console-applications.png')} and ${join('docs', 'images', 'console-deliveries.png')}`,
  );
} finally {
  await browser.close();
  server.closeAllConnections();
  server.close();
  receiver.closeAllConnections();
  receiver.close();
  await service.close();
}
