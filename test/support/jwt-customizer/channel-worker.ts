/**
 * A worker that serves the sandbox channel the way the sandbox worker does, but answers each run with the request
 * it read, so a test sees exactly what crossed the block. It posts `ready` once it serves. When the host puts a
 * number into `workerData.hold`, it waits after claiming each request until the host stores 0 there again, so a
 * test can act while a run is in progress.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { WorkerSide } from '../../../lib/jwt-customizer/sandbox-channel.ts';
import type { RunRequest, WorkerMessage } from '../../../lib/jwt-customizer/sandbox-protocol.ts';

const port = parentPort;
if (!port) throw new Error('channel-worker must run in a worker thread');
const { buffer, hold } = workerData as { buffer: SharedArrayBuffer; hold: SharedArrayBuffer };
const channel = new WorkerSide(buffer);
const held = new Int32Array(hold);
port.postMessage({ type: 'ready' });
for (;;) {
  const requests = channel.receive(() => {
    const received = receiveMessageOnPort(port);
    if (!received) throw new Error('the announced request did not arrive');
    return received.message as RunRequest;
  });
  for (let index = 0; index < requests.length && channel.claim(index); index += 1) {
    let value = Atomics.load(held, 0);
    while (value !== 0) {
      Atomics.wait(held, 0, value);
      value = Atomics.load(held, 0);
    }
    channel.reply(index, { kind: 'claims', claims: { received: requests[index] } }, (at, outcome) => {
      const message: WorkerMessage = { type: 'result', index: at, outcome };
      port.postMessage(message);
    });
  }
  channel.finish(true);
}
