import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWebhookWorker } from '../app/worker.ts';
import { createLogger } from '../lib/logger.ts';
import { shutdownBoundMs } from '../lib/shutdown.ts';
import { hostPort, listenOrExit, runUntilSignalled, settingsOrExit } from './lifecycle.ts';

/**
 * `npm run worker`: one ready line, graceful stop on SIGTERM/SIGINT. The port (WORKER_PORT) is taken once the worker
 * consumes, so `/readyz` answers only from a worker that delivers.
 */
async function main(): Promise<void> {
  const settings = settingsOrExit(process.env);
  const logger = createLogger(settings.LOG_LEVEL);
  const server = createServer();
  const worker = await runUntilSignalled(
    logger,
    () => startWebhookWorker({ logger }),
    async (running) => {
      server.close();
      server.closeIdleConnections();
      await running.close();
    },
    shutdownBoundMs(settings),
  );
  server.on('request', worker.app.callback());
  await listenOrExit(server, settings.HOST, settings.WORKER_PORT);
  const listening = server.address() as AddressInfo;
  logger.info(
    { queue: worker.queueName, concurrency: worker.concurrency, host: settings.HOST, port: listening.port },
    `ready: webhook worker consuming ${worker.queueName}, serving /healthz, /readyz and /metrics on ${hostPort(settings.HOST, listening.port)}`,
  );
}

await main();
