import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { HostSide, type Reply } from '../../lib/jwt-customizer/sandbox-channel.ts';
import type { RunRequest } from '../../lib/jwt-customizer/sandbox.ts';

const request = (inputJson: string): RunRequest => ({
  script: 'const getCustomJwtClaims = () => ({});',
  inputJson,
  deadline: Date.now() + 60_000,
  compileOnly: false,
  keepRealm: true,
});

describe('sandbox channel', () => {
  let host: HostSide;
  let worker: Worker;

  beforeEach(async () => {
    host = new HostSide();
    worker = new Worker(new URL('./support/channel-worker.ts', import.meta.url), { workerData: { buffer: host.buffer } });
    await once(worker, 'message');
  });
  afterEach(async () => {
    await worker.terminate();
  });

  const exchange = (sent: RunRequest) => new Promise<Reply | undefined>((resolve) => {
    host.send(sent, (oversized) => worker.postMessage(oversized), resolve);
  });

  const received = (reply: Reply | undefined): unknown => {
    expect(reply?.outcome.kind).to.equal('claims');
    return reply?.outcome.kind === 'claims' ? reply.outcome.claims.received : undefined;
  };

  /** Wakes the parked worker without handing it anything; resolves once a wake-up reached it. */
  async function wakeWithoutRequest(): Promise<void> {
    const state = new Int32Array(host.buffer, 0, 1);
    for (let attempt = 0; attempt < 10_000; attempt++) {
      if (Atomics.notify(state, 0) > 0) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throw new Error('the worker never parked');
  }

  it('hands over each request as sent, whether or not the script changed', async () => {
    for (const sent of [request('{"n":1}'), request('{"n":22}'), { ...request('null'), script: 'other', keepRealm: false }]) {
      const reply = await exchange(sent);
      expect(received(reply)).to.deep.equal(sent);
    }
  });

  it('makes a worker woken without a request wait for one instead of reading what the block holds', async () => {
    // The block now holds a reply written over a request: what a stray wake-up would find.
    await exchange(request('{"token":{"grantId":"grant-1"},"context":{}}'));
    await wakeWithoutRequest();
    const sent = request('{"token":{"grantId":"grant-2"},"context":{}}');
    expect(received(await exchange(sent))).to.deep.equal(sent);
  });
});
