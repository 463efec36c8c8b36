import { expect } from 'chai';
import { createOriginSlots, type OriginSlot } from '../../lib/webhooks/origin-slots.ts';
import { eventually } from '../support/wait.ts';

const FAST_MS = 100;
const ORIGIN = 'http://127.0.0.1:9';

function slotOf(result: OriginSlot | { busyForMs: number | undefined }): OriginSlot {
  if ('busyForMs' in result) throw new Error(`busy for ${result.busyForMs} ms`);
  return result;
}

/** Lets the slots' timers and promise callbacks run, without waiting for a wall-clock time. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('webhook origin slots', () => {
  it('turns an attempt away at once while the origin is unknown or slow, with how long its attempts take', async () => {
    const slots = createOriginSlots({ concurrency: 2, fastMs: FAST_MS });
    const first = slotOf(await slots.acquire(ORIGIN));
    slotOf(await slots.acquire(ORIGIN));
    expect(await slots.acquire(ORIGIN)).to.deep.equal({ busyForMs: undefined });
    first.release(5000);
    slotOf(await slots.acquire(ORIGIN));
    expect(await slots.acquire(ORIGIN)).to.deep.equal({ busyForMs: 5000 });
    slotOf(await slots.acquire('http://127.0.0.1:10'));
  });

  it('lets attempts to a fast origin wait their turn, in order, never more than the cap in flight', async () => {
    const slots = createOriginSlots({ concurrency: 2, fastMs: FAST_MS });
    slotOf(await slots.acquire(ORIGIN)).release(1);
    const running = [slotOf(await slots.acquire(ORIGIN)), slotOf(await slots.acquire(ORIGIN))];
    const order: number[] = [];
    const waiting = [1, 2, 3].map((n) =>
      slots.acquire(ORIGIN).then((slot) => {
        order.push(n);
        return slotOf(slot);
      }),
    );
    await settled();
    expect(order).to.deep.equal([]);
    running[0]!.release(1);
    await settled();
    expect(order).to.deep.equal([1]);
    running[1]!.release(1);
    (await waiting[0])!.release(1);
    await settled();
    expect(order).to.deep.equal([1, 2, 3]);
    for (const slot of await Promise.all(waiting)) slot.release(1);
    slotOf(await slots.acquire(ORIGIN));
  });

  it('gives up waiting after fastMs, and stops waiting for an origin whose attempt in flight hangs', async () => {
    const slots = createOriginSlots({ concurrency: 1, fastMs: FAST_MS });
    slotOf(await slots.acquire(ORIGIN)).release(1);
    slotOf(await slots.acquire(ORIGIN));
    const heldSince = performance.now();
    const started = performance.now();
    expect(await slots.acquire(ORIGIN)).to.deep.equal({ busyForMs: 1 });
    const waited = performance.now() - started;
    expect(waited).to.be.at.least(FAST_MS - 5);
    // Once the one in flight is older than fastMs, the origin no longer counts as fast: no waiting.
    await eventually(() => performance.now() - heldSince > FAST_MS + 10, { intervalMs: 5 });
    const again = performance.now();
    expect(await slots.acquire(ORIGIN)).to.deep.equal({ busyForMs: 1 });
    expect(performance.now() - again).to.be.below(FAST_MS / 2);
  });
});
