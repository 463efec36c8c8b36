import { createServer } from 'node:http';
import { createIdentityService } from '../lib/index.ts';
import { ConfigurationError } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';

/** Standalone server: everything on one port, with the webhook worker in-process unless disabled. */
async function main(): Promise<void> {
  const logger = createLogger(process.env.LOG_LEVEL ?? 'info');
  let service;
  try {
    service = await createIdentityService({ logger });
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const server = createServer(service.app.callback());
  server.keepAliveTimeout = 65_000;
  server.listen(service.settings.PORT, () => {
    logger.info(
      { port: service.settings.PORT, issuer: service.settings.issuer, storage: service.core.store.kind },
      `ready: ${service.settings.baseUrl} (issuer ${service.settings.issuer})`,
    );
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    server.close();
    server.closeIdleConnections();
    await service.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
