import { expect } from 'chai';
import { clientCredentialsToken, startService } from '../support/service.ts';
import { forEachBackend, type StoreBackend } from '../support/storage/backends.ts';

const GENERATED = { ADMIN_CLIENT_ID: undefined, ADMIN_CLIENT_SECRET: undefined };

/** Whether `secret` gets `admin-console` a management token from the instance at `baseUrl`. */
async function works(baseUrl: string, secret: string): Promise<boolean> {
  return clientCredentialsToken(baseUrl, 'admin-console', secret, `${baseUrl}/api`, 'all').then(
    () => true,
    () => false,
  );
}

forEachBackend('generated bootstrap credentials, over two starts on one store', (backend: StoreBackend) => {
  after(() => backend.tearDown());

  it('prints the secret when it creates it, saying how long it lasts; a later start says it exists and how to replace it', async () => {
    const documents = await backend.open();
    const printed: string[] = [];
    const print = (text: string) => printed.push(text);

    const first = await startService({ env: GENERATED, stores: { documents }, print });
    const secret = /ADMIN_CLIENT_SECRET=(\S+)/.exec(printed.join(''))?.[1];
    try {
      expect(secret).to.be.a('string');
      expect(printed.join('')).to.include(
        backend.kind === 'memory'
          ? 'Management API credentials (created now; embedded storage keeps them only until this process exits, so each ' +
              'start creates new ones: set ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET to keep the same):\n  ADMIN_CLIENT_ID=admin-console\n'
          : 'Management API credentials (created now and shown only this once: store them now):\n  ADMIN_CLIENT_ID=admin-console\n',
      );
      expect(await works(first.baseUrl, secret!)).to.equal(true);
    } finally {
      await first.close();
    }

    printed.length = 0;
    const second = await startService({ env: GENERATED, stores: { documents }, print });
    try {
      const text = printed.join('');
      expect(text).not.to.include('ADMIN_CLIENT_SECRET=');
      expect(text).not.to.include(secret!);
      expect(text).to.include(
        'Management API credentials: the application admin-console exists; its secret was shown when it was ' +
          'created. To replace it: POST /api/applications/admin-console/secret, or set ADMIN_CLIENT_SECRET (applied at every start).',
      );
      expect(await works(second.baseUrl, secret!), 'the secret printed at the first start').to.equal(true);

      // The way the line names replaces it.
      const token = await clientCredentialsToken(
        second.baseUrl,
        'admin-console',
        secret!,
        `${second.baseUrl}/api`,
        'all',
      );
      const rotated = await second.request('/api/applications/admin-console/secret', { method: 'POST', token });
      expect(rotated.status).to.equal(200);
      const { secret: replacement } = (await rotated.json()) as { secret: string };
      expect(await works(second.baseUrl, replacement)).to.equal(true);
      expect(await works(second.baseUrl, secret!)).to.equal(false);
    } finally {
      await second.close();
    }
  });

  it('prints nothing about them when ADMIN_CLIENT_SECRET is set', async () => {
    const documents = await backend.open();
    const printed: string[] = [];
    for (let start = 0; start < 2; start += 1) {
      const running = await startService({ stores: { documents }, print: (text) => printed.push(text) });
      await running.close();
    }
    expect(printed.join('')).not.to.include('Management API credentials');
  });
});
