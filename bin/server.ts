import { createServer } from 'node:http';
import { createIdentityService } from '../lib/index.ts';
import { createLogger } from '../lib/logger.ts';
import { runUntilSignalled } from './lifecycle.ts';

/** Standalone server: everything on one port, with the webhook worker in-process unless disabled. */
async function main(): Promise<void> {
  const logger = createLogger(process.env.LOG_LEVEL ?? 'info');
  const server = createServer();
  const service = await runUntilSignalled(logger, () => createIdentityService({ logger }), async (running) => {
    server.close();
    server.closeIdleConnections();
    await running.close();
  });
  server.on('request', service.app.callback());
  server.keepAliveTimeout = 65_000;
  server.listen(service.settings.PORT, () => {
    logger.info(
      { port: service.settings.PORT, issuer: service.settings.issuer, storage: service.core.store.kind },
      `ready: ${service.settings.baseUrl} (issuer ${service.settings.issuer})`,
    );
  });
}

await main();
