import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIdentityService } from '../app/index.ts';
import { shutdownBoundMs } from '../lib/shutdown.ts';
import { createLogger } from '../lib/logger.ts';
import { settleStartup } from '../lib/startup.ts';
import { hostPort, listenOrExit, runUntilSignalled, settingsOrExit } from './lifecycle.ts';

/** What the port answers while the service is being built: not ready yet, come back shortly. */
const starting: RequestListener = (_request, response) => {
  response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  response.end('{"status":"starting"}');
};

/**
 * Standalone server: everything on one port, with the webhook worker in-process unless disabled. The port is
 * taken before the service is built, so a port in use stops the start before generated admin credentials
 * are created (and stored) and printed: they are only ever shown by a server that serves. So does a store that
 * does not answer (`requireStores`): a server is never "ready" on a dead dependency.
 */
async function main(): Promise<void> {
  // A file-size limit (ulimit -f) is enforced with SIGXFSZ, which would kill the process: ignored, the write that
  // went past the limit fails instead (EFBIG), and the store answers it with 503 as it does a full disk.
  process.on('SIGXFSZ', () => {});
  const settings = settingsOrExit(process.env);
  const logger = createLogger(settings.LOG_LEVEL);
  const server = createServer(starting);
  server.keepAliveTimeout = 65_000;
  await listenOrExit(server, settings.HOST, settings.PORT);
  // The port the system chose when PORT=0.
  const listening = server.address() as AddressInfo;
  const service = await runUntilSignalled(
    logger,
    () => createIdentityService({ logger, requireStores: true }),
    async (running) => {
      server.close();
      server.closeIdleConnections();
      await running.close();
    },
    shutdownBoundMs(settings),
  );
  // While the port still answers "starting": the collection pauses the process for about 100 ms.
  settleStartup();
  server.off('request', starting);
  server.on('request', service.app.callback());
  logger.info(
    { host: settings.HOST, port: listening.port, issuer: service.settings.issuer, storage: service.core.store.kind },
    `ready: listening on ${hostPort(settings.HOST, listening.port)}, serving ${service.settings.baseUrl} (issuer ${service.settings.issuer})`,
  );
}

await main();
