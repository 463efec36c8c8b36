/**
 * A worker that serves the sandbox channel the way the sandbox worker does, but answers each run with the request
 * it read, so a test sees exactly what crossed the block. It posts `ready` once it serves.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { WorkerSide } from '../../../lib/jwt-customizer/sandbox-channel.ts';
import type { RunRequest } from '../../../lib/jwt-customizer/sandbox.ts';

const port = parentPort;
if (!port) throw new Error('channel-worker must run in a worker thread');
const channel = new WorkerSide((workerData as { buffer: SharedArrayBuffer }).buffer);
port.postMessage({ type: 'ready' });
for (;;) {
  const request = channel.receive(() => {
    const received = receiveMessageOnPort(port);
    if (!received) throw new Error('the announced request did not arrive');
    return received.message as RunRequest;
  });
  channel.reply({ outcome: { kind: 'claims', claims: { received: request } }, reusable: true }, () => undefined);
}
