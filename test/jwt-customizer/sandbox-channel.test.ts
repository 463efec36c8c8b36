import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { HostSide, MAX_BATCH, type BatchReply } from '../../lib/jwt-customizer/sandbox-channel.ts';
import type { RunRequest, SandboxOutcome, WorkerMessage } from '../../lib/jwt-customizer/sandbox-protocol.ts';

const request = (inputJson: string, script = 'const getCustomJwtClaims = () => ({});'): RunRequest => ({
  script,
  inputJson,
  deadline: Date.now() + 60_000,
  compileOnly: false,
  keepRealm: true,
});

const received = (outcome: SandboxOutcome | undefined): unknown => {
  expect(outcome?.kind).to.equal('claims');
  return outcome?.kind === 'claims' ? outcome.claims.received : undefined;
};

describe('sandbox channel', () => {
  let host: HostSide;
  let worker: Worker;
  /** Non-zero holds the worker after it claimed a request (see test/support/jwt-customizer/channel-worker.ts). */
  let hold: Int32Array;

  beforeEach(async () => {
    host = new HostSide();
    hold = new Int32Array(new SharedArrayBuffer(4));
    worker = new Worker(new URL('../support/jwt-customizer/channel-worker.ts', import.meta.url), {
      workerData: { buffer: host.buffer, hold: hold.buffer },
    });
    await once(worker, 'message');
  });
  afterEach(async () => {
    Atomics.store(hold, 0, 0);
    Atomics.notify(hold, 0);
    await worker.terminate();
  });

  /** Sends a batch; resolves with how many requests it took and the worker's reply. */
  const exchange = async (sent: RunRequest[]) => {
    let count = 0;
    const reply = await new Promise<BatchReply | undefined>((resolve) => {
      count = host.send(sent, (oversized) => worker.postMessage(oversized), resolve);
    });
    return { count, reply };
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

  /** Resolves once the worker has started a run (it claimed a request and is held there). */
  async function started(): Promise<void> {
    for (let attempt = 0; attempt < 10_000; attempt++) {
      if (host.startedAt() !== 0) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throw new Error('the worker never started a run');
  }

  it('hands over each request as sent, whether or not the script changed', async () => {
    for (const sent of [
      request('{"n":1}'),
      request('{"n":22}'),
      { ...request('null'), script: 'other', keepRealm: false },
    ]) {
      const { count, reply } = await exchange([sent]);
      expect(count).to.equal(1);
      expect(reply?.outcomes.map(received)).to.deep.equal([sent]);
    }
  });

  it('hands over the requests of a batch together and answers each in order', async () => {
    const sent = [
      request('{"n":1}'),
      request('{"n":2}'),
      request('{"n":3}', 'const getCustomJwtClaims = () => ({ other: true });'),
      { ...request('{"n":4}'), compileOnly: true, keepRealm: false },
      request('{"n":"é☃"}'),
    ];
    const { count, reply } = await exchange(sent);
    expect(count).to.equal(sent.length);
    expect(reply?.reusable).to.equal(true);
    expect(reply?.outcomes.map(received)).to.deep.equal(sent);
  });

  it('takes as many requests as fit a batch and leaves the rest to the next', async () => {
    const many = Array.from({ length: MAX_BATCH + 3 }, (_, n) => request(`{"n":${n}}`));
    const first = await exchange(many);
    expect(first.count).to.equal(MAX_BATCH);
    expect(first.reply?.outcomes.map(received)).to.deep.equal(many.slice(0, MAX_BATCH));

    const large = [request(`"${'a'.repeat(40_000)}"`), request(`"${'b'.repeat(40_000)}"`)];
    const second = await exchange(large);
    expect(second.count, 'the second request does not fit beside the first').to.equal(1);
    expect(second.reply?.outcomes.map(received)).to.deep.equal(large.slice(0, 1));
  });

  it('sends a first request too large for the block alone, as a message', async () => {
    const huge = [request(`"${'h'.repeat(100_000)}"`), request('{"n":1}')];
    const messages: WorkerMessage[] = [];
    worker.on('message', (message: WorkerMessage) => messages.push(message));
    const { count, reply } = await exchange(huge);
    expect(count).to.equal(1);
    // The echoed request is as large as the request: it comes back as a message naming it.
    expect(reply?.outcomes).to.deep.equal([undefined]);
    while (messages.length === 0) await once(worker, 'message');
    expect(messages).to.have.length(1);
    const [message] = messages;
    expect(message?.type === 'result' && message.index).to.equal(0);
    expect(message?.type === 'result' && received(message.outcome)).to.deep.equal(huge[0]);
  });

  it('sends a reply that does not fit what is left of the block as a message naming its request', async () => {
    // Each input is 20,000 escaped backslashes, and twice as long once echoed back in a JSON string.
    const backslashes = `"${'\\\\'.repeat(10_000)}"`;
    const sent = [request(backslashes), request(backslashes), request('{"n":3}')];
    const messages: WorkerMessage[] = [];
    worker.on('message', (message: WorkerMessage) => messages.push(message));
    const { count, reply } = await exchange(sent);
    expect(count).to.equal(3);
    const [first, second, third] = reply?.outcomes ?? [];
    expect(received(first)).to.deep.equal(sent[0]);
    expect(second).to.equal(undefined);
    expect(received(third)).to.deep.equal(sent[2]);
    while (messages.length === 0) await once(worker, 'message');
    const [message] = messages;
    expect(message?.type === 'result' && message.index).to.equal(1);
    expect(message?.type === 'result' && received(message.outcome)).to.deep.equal(sent[1]);
  });

  it('lets the host take back the requests the worker has not claimed, and the worker stops before them', async () => {
    Atomics.store(hold, 0, 1);
    const sent = [request('{"n":1}'), request('{"n":2}'), request('{"n":3}')];
    let count = 0;
    const replied = new Promise<BatchReply | undefined>((resolve) => {
      count = host.send(sent, (oversized) => worker.postMessage(oversized), resolve);
    });
    expect(count).to.equal(3);
    await started();
    expect(host.done()).to.equal(0);
    expect(host.startedAt()).to.be.closeTo(Date.now(), 5_000);
    expect(host.takeBack(0, 3), 'the claimed request stays with the worker').to.equal(1);
    Atomics.store(hold, 0, 0);
    Atomics.notify(hold, 0);
    const reply = await replied;
    expect(reply?.outcomes.map(received)).to.deep.equal(sent.slice(0, 1));
    expect(host.done()).to.equal(1);

    // A batch the worker has answered in full has nothing left to take back.
    const { reply: whole } = await exchange(sent);
    expect(whole?.outcomes).to.have.length(3);
    expect(host.takeBack(0, 3)).to.equal(3);
  });

  it('makes a worker woken without a request wait for one instead of reading what the block holds', async () => {
    // The block now holds replies written over requests: what a stray wake-up would find.
    await exchange([request('{"token":{"grantId":"grant-1"},"context":{}}'), request('{"n":2}')]);
    await wakeWithoutRequest();
    const sent = request('{"token":{"grantId":"grant-2"},"context":{}}');
    const { reply } = await exchange([sent]);
    expect(reply?.outcomes.map(received)).to.deep.equal([sent]);
  });
});
