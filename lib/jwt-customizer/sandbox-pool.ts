import { Worker } from 'node:worker_threads';
import { HostSide, MAX_BATCH, type BatchReply } from './sandbox-channel.ts';
import type {
  CheckOutcome,
  RunRequest,
  SandboxLimits,
  SandboxOutcome,
  ScriptInput,
  ScriptRunner,
  WorkerMessage,
} from './sandbox-protocol.ts';

/** `.ts` when run from source, `.js` from the published build: the worker file sits beside this one. */
const MODULE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** Slack for the worker's own deadline handling and reply before the host kills it. */
const HOST_TIMEOUT_MARGIN_MS = 250;
const WORKER_STARTUP_TIMEOUT_MS = 10_000;
/** Bounds each worker's own V8 heap; the WebAssembly memory QuickJS runs in is bounded in the worker. */
const WORKER_HEAP_MB = 128;
/**
 * How long runs wait without progress before the pool acts: a lane's queued runs, without any of them being taken
 * by a worker busy with the lane's own runs, before another worker starts for them; the runs of a batch behind one
 * still running, before they are taken back from its worker and queued again. A worker serves a trivial script in
 * microseconds, so load alone rarely needs a second one; slow scripts do.
 */
const GROW_AFTER_MS = 250;

interface Lane {
  /** How many of the lane's batches may run at the same time (each on a worker of its own). */
  capacity: number;
  /** Whether its runs may share the warm realm of a script (see `Realms` in `sandbox-worker.ts`). */
  keepRealms: boolean;
  busy: number;
  /** When the lane last handed runs to a worker, or its queue last filled from empty. */
  progressAt: number;
  /** Oldest first; runs queue with the same time limit, so this is also by deadline. */
  queue: PendingRun[];
  closed: boolean;
}

/** A run's `deadline` counts from the call. */
interface PendingRun extends RunRequest {
  lane: Lane;
  resolve: (outcome: SandboxOutcome) => void;
}

/** Runs handed to a worker together, in queue order (see `sandbox-channel.ts`). */
interface Batch {
  lane: Lane;
  /** The batch's runs, each `undefined` once answered; shortened when runs are taken back. */
  runs: (PendingRun | undefined)[];
  dispatchedAt: number;
  /** Set once the worker answered the batch: how many runs it answered (the others go back to the queue). */
  answered: number | undefined;
  reusable: boolean;
}

interface Slot {
  worker: Worker;
  channel: HostSide;
  ready: boolean;
  referenced: boolean;
  startupTimer: NodeJS.Timeout;
  batch: Batch | undefined;
}

function runtimeError(message: string): SandboxOutcome {
  return { kind: 'error', code: 'runtime', message };
}

const closed = () => runtimeError('the script runner is closed');

/**
 * Sandbox workers shared by lanes of runs (token issuance, and the management API's test runs), each worker
 * running one script at a time. A lane never runs more than its capacity of workers at once and never waits for
 * another lane's runs: when every worker is busy with other lanes, another starts at once. The runs a lane queued
 * while its workers were busy go to a worker together, as one batch (split among the idle workers the lane may
 * use), so a worker woken once serves them all. Workers start on demand, the first with the first run and each
 * further one only when a lane's queued runs have waited `GROW_AFTER_MS` without one being taken, up to the lanes'
 * capacities together; they stay warm. The runs of a batch that have waited `GROW_AFTER_MS` behind a run still
 * running are taken back from the worker and queued again, so that a slow run holds up no other one longer than
 * that. A worker that misses its deadline, exhausts its memory or dies is terminated and replaced (the last one at
 * once, others as runs need them); the runs of its batch that it had not started are queued again. One timer
 * follows every deadline, instead of one per run.
 */
export class SandboxPool {
  readonly #limits: SandboxLimits;
  readonly #lanes: Lane[] = [];
  readonly #slots = new Set<Slot>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweepAt = Infinity;
  #closed = false;

  constructor(limits: SandboxLimits) {
    this.#limits = limits;
  }

  /** A runner whose runs use at most `capacity` workers at once; `keepRealms: false` gives each run a fresh realm. */
  lane(capacity: number, keepRealms: boolean): ScriptRunner {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError('the sandbox pool needs at least one worker');
    }
    const lane: Lane = { capacity, keepRealms, busy: 0, progressAt: 0, queue: [], closed: false };
    this.#lanes.push(lane);
    return {
      run: (script: string, input: ScriptInput): Promise<SandboxOutcome> => {
        let inputJson: string;
        try {
          inputJson = JSON.stringify({
            token: input.token,
            context: input.context,
            environmentVariables: input.environmentVariables,
          });
        } catch (error) {
          return Promise.resolve(
            runtimeError(`the script input is not JSON-serialisable: ${(error as Error).message}`),
          );
        }
        return this.#submit(lane, script, inputJson, false);
      },
      check: async (script: string): Promise<CheckOutcome> => {
        const outcome = await this.#submit(lane, script, 'null', true);
        // A compile-only run answers empty claims once the script compiled (see RunRequest.compileOnly).
        return outcome.kind === 'error' ? outcome : { kind: 'compiled' };
      },
      close: () => this.#closeLane(lane),
    };
  }

  #submit(lane: Lane, script: string, inputJson: string, compileOnly: boolean): Promise<SandboxOutcome> {
    if (lane.closed) return Promise.resolve(closed());
    const now = Date.now();
    const deadline = now + this.#limits.timeoutMs;
    if (lane.queue.length === 0) lane.progressAt = now;
    return new Promise((resolve) => {
      lane.queue.push({ lane, script, inputJson, deadline, compileOnly, keepRealm: lane.keepRealms, resolve });
      this.#pump();
    });
  }

  /** Fails the lane's queued and running runs (a worker running some is terminated); the last lane closes the pool. */
  async #closeLane(lane: Lane): Promise<void> {
    lane.closed = true;
    for (const run of lane.queue.splice(0)) run.resolve(closed());
    const terminations: Promise<number>[] = [];
    const closing = this.#lanes.every((other) => other.closed);
    if (closing) {
      this.#closed = true;
      clearTimeout(this.#sweepTimer);
    }
    for (const slot of [...this.#slots]) {
      if (!closing && slot.batch?.lane !== lane) continue;
      this.#abandon(slot, closed());
      terminations.push(this.#retire(slot));
    }
    // The other lanes' queued runs may need a worker in place of those retired.
    this.#pump();
    await Promise.all(terminations);
  }

  #timeout(): SandboxOutcome {
    return {
      kind: 'error',
      code: 'timeout',
      message: `script exceeded the time limit of ${this.#limits.timeoutMs} ms`,
    };
  }

  /** Hands queued runs to idle workers, starts a worker when one is needed and follows the deadlines. */
  #pump(): void {
    if (this.#closed) return;
    for (const lane of this.#lanes) {
      while (lane.queue.length > 0 && lane.busy < lane.capacity) {
        const idle = this.#idle();
        const slot = idle[0];
        if (!slot) break;
        // The queue is shared among the idle workers the lane may use.
        const share = Math.ceil(lane.queue.length / Math.min(idle.length, lane.capacity - lane.busy));
        this.#dispatch(slot, lane, share);
      }
    }
    const growAt = this.#grow();
    this.#updateRefs();
    this.#arm(growAt);
  }

  #idle(): Slot[] {
    const idle: Slot[] = [];
    for (const slot of this.#slots) if (slot.ready && !slot.batch) idle.push(slot);
    return idle;
  }

  /** Fails the lane's queued runs whose deadline has passed (the oldest are first). */
  #expire(lane: Lane, now: number): void {
    while (lane.queue[0] && lane.queue[0].deadline <= now) (lane.queue.shift() as PendingRun).resolve(this.#timeout());
  }

  /** Hands up to `count` of the lane's queued runs to the worker; runs whose deadline has passed fail instead. */
  #dispatch(slot: Slot, lane: Lane, count: number): void {
    const now = Date.now();
    this.#expire(lane, now);
    if (lane.queue.length === 0) return;
    const offered = count >= lane.queue.length ? lane.queue : lane.queue.slice(0, Math.min(count, MAX_BATCH));
    const batch: Batch = { lane, runs: [], dispatchedAt: now, answered: undefined, reusable: true };
    const post = ({ script, inputJson, deadline, compileOnly, keepRealm }: RunRequest) => {
      const request: RunRequest = { script, inputJson, deadline, compileOnly, keepRealm };
      slot.worker.postMessage(request);
    };
    const sent = slot.channel.send(offered, post, (reply) => {
      if (reply) this.#onBatchReply(slot, batch, reply);
    });
    batch.runs = lane.queue.splice(0, sent);
    slot.batch = batch;
    lane.busy += 1;
    lane.progressAt = now;
  }

  /**
   * Starts a worker for a lane with runs waiting and room to run them: at once when the lane runs nothing (every
   * worker is busy with other lanes, or there is none yet), after `GROW_AFTER_MS` of waiting otherwise. One worker
   * starts at a time. Returns when to look again for a lane that has not waited long enough yet.
   */
  #grow(): number {
    let capacity = 0;
    for (const lane of this.#lanes) if (!lane.closed) capacity += lane.capacity;
    if (this.#slots.size >= capacity) return Infinity;
    for (const slot of this.#slots) if (!slot.ready) return Infinity;
    let growAt = Infinity;
    const now = Date.now();
    for (const lane of this.#lanes) {
      const head = lane.queue[0];
      if (!head || lane.busy >= lane.capacity) continue;
      const at = lane.busy === 0 ? now : lane.progressAt + GROW_AFTER_MS;
      if (at <= now) {
        this.#start();
        return Infinity;
      }
      growAt = Math.min(growAt, at);
    }
    return growAt;
  }

  /** The running run of the slot's batch, by what the worker has answered so far. */
  #running(slot: Slot): { run: PendingRun | undefined; index: number } {
    const index = slot.channel.done();
    return { run: slot.batch?.runs[index], index };
  }

  /** When the runs of the slot's batch behind its running run have waited long enough to be taken back. */
  #takeBackAt(slot: Slot): number {
    const batch = slot.batch;
    if (!batch || batch.answered !== undefined) return Infinity;
    if (this.#running(slot).index + 1 >= batch.runs.length) return Infinity;
    return Math.max(batch.dispatchedAt, slot.channel.startedAt()) + GROW_AFTER_MS;
  }

  /** Keeps the one timer set for the earliest of: a queued run's deadline, a running one's overrun, a take-back, `growAt`. */
  #arm(growAt: number): void {
    let next = growAt;
    for (const lane of this.#lanes) {
      const head = lane.queue[0];
      if (head && head.deadline < next) next = head.deadline;
    }
    for (const slot of this.#slots) {
      const { run } = this.#running(slot);
      if (run && run.deadline + HOST_TIMEOUT_MARGIN_MS < next) next = run.deadline + HOST_TIMEOUT_MARGIN_MS;
      next = Math.min(next, this.#takeBackAt(slot));
    }
    if (next === Infinity || next >= this.#sweepAt) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = next;
    // Unreferenced: every pending run has a referenced worker (see #updateRefs).
    this.#sweepTimer = setTimeout(() => this.#sweep(), Math.max(0, next - Date.now())).unref();
  }

  /**
   * Fails queued runs at their deadline, replaces a worker still running past its run's deadline and takes back
   * the runs that waited too long behind a running one.
   */
  #sweep(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    const now = Date.now();
    for (const lane of this.#lanes) this.#expire(lane, now);
    for (const slot of [...this.#slots]) {
      const batch = slot.batch;
      if (!batch) continue;
      const { run, index } = this.#running(slot);
      if (run && run.deadline + HOST_TIMEOUT_MARGIN_MS <= now) {
        // The worker missed its own deadline (e.g. stuck in one long native operation): it cannot be trusted.
        this.#abandon(slot, this.#timeout());
        this.#replace(slot);
      } else if (this.#takeBackAt(slot) <= now) {
        this.#requeue(batch, slot.channel.takeBack(index + 1, batch.runs.length));
        // They have waited for a worker as long as queued runs wait before one is started for them.
        batch.lane.progressAt = Math.min(batch.lane.progressAt, now - GROW_AFTER_MS);
      }
    }
    this.#pump();
  }

  #start(): void {
    const channel = new HostSide();
    const worker = new Worker(new URL(`./sandbox-worker${MODULE_EXTENSION}`, import.meta.url), {
      workerData: { timeoutMs: this.#limits.timeoutMs, memoryBytes: this.#limits.memoryBytes, buffer: channel.buffer },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const slot: Slot = {
      worker,
      channel,
      ready: false,
      referenced: true,
      batch: undefined,
      startupTimer: setTimeout(
        () => this.#onFailure(slot, new Error('the sandbox worker did not start in time')),
        WORKER_STARTUP_TIMEOUT_MS,
      ),
    };
    slot.startupTimer.unref();
    this.#slots.add(slot);
    worker.on('message', (message: WorkerMessage) => {
      if (!this.#slots.has(slot)) return;
      if (message.type === 'ready') {
        slot.ready = true;
        clearTimeout(slot.startupTimer);
        this.#pump();
      } else if (slot.batch) {
        this.#answer(slot.batch, message.index, message.outcome);
        this.#complete(slot);
      }
    });
    worker.on('error', (error) => this.#onFailure(slot, error));
    worker.on('exit', (code) => this.#onFailure(slot, new Error(`the sandbox worker exited with code ${code}`)));
  }

  /** Moves the batch's runs from `from` on, those not answered, back to the head of their lane's queue, in order. */
  #requeue(batch: Batch, from: number): void {
    batch.lane.queue.unshift(...batch.runs.splice(from).filter((run) => run !== undefined));
  }

  #answer(batch: Batch, index: number, outcome: SandboxOutcome): void {
    const run = batch.runs[index];
    if (!run) return;
    batch.runs[index] = undefined;
    run.resolve(outcome);
  }

  /** The worker's answer to `batch`, when that is still the batch it serves. */
  #onBatchReply(slot: Slot, batch: Batch, reply: BatchReply): void {
    if (!this.#slots.has(slot) || slot.batch !== batch) return;
    reply.outcomes.forEach((outcome, index) => {
      if (outcome) this.#answer(batch, index, outcome);
    });
    batch.answered = reply.outcomes.length;
    batch.reusable = reply.reusable;
    this.#complete(slot);
  }

  /**
   * Frees the worker once its batch is answered and every answer that came as a message is in; the runs it did
   * not answer are queued again, and a worker that cannot be reused is replaced.
   */
  #complete(slot: Slot): void {
    const batch = slot.batch;
    if (!batch || batch.answered === undefined) return;
    for (let index = 0; index < batch.answered; index += 1) if (batch.runs[index]) return;
    slot.batch = undefined;
    batch.lane.busy -= 1;
    this.#requeue(batch, batch.answered);
    if (!batch.reusable) this.#replace(slot);
    this.#pump();
  }

  #onFailure(slot: Slot, error: Error & { code?: string }): void {
    if (!this.#slots.has(slot)) return;
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    this.#abandon(
      slot,
      outOfMemory
        ? { kind: 'error', code: 'memory', message: 'script exceeded the memory limit of the sandbox worker' }
        : runtimeError(`the sandbox worker failed: ${error.message}`),
    );
    if (slot.ready) {
      this.#replace(slot);
    } else {
      void this.#retire(slot);
      // A worker that never became ready would fail the same way again: without a working worker the
      // queues are failed instead of restarting in a loop.
      if (![...this.#slots].some((other) => other.ready)) {
        for (const lane of this.#lanes) {
          for (const run of lane.queue.splice(0))
            run.resolve(runtimeError(`the sandbox worker failed: ${error.message}`));
        }
      }
    }
    this.#pump();
  }

  /**
   * Settles the batch of a worker the pool gives up on: runs it answered get their outcome, the run it was on (and
   * any whose answer was still on its way as a message) `outcome`, and runs it had not started are queued again,
   * or get `outcome` too when their lane is closed.
   */
  #abandon(slot: Slot, outcome: SandboxOutcome): void {
    const batch = slot.batch;
    if (!batch) return;
    slot.batch = undefined;
    batch.lane.busy -= 1;
    const answered = Math.min(slot.channel.done(), batch.runs.length);
    slot.channel.outcomes(answered).forEach((answer, index) => {
      this.#answer(batch, index, answer ?? outcome);
    });
    if (!batch.lane.closed) this.#requeue(batch, slot.channel.takeBack(answered, batch.runs.length));
    for (let index = 0; index < batch.runs.length; index += 1) this.#answer(batch, index, outcome);
  }

  /** Terminates the worker; the last one is succeeded at once, so the pool keeps a warm worker. */
  #replace(slot: Slot): void {
    void this.#retire(slot);
    if (!this.#closed && this.#slots.size === 0) this.#start();
  }

  #retire(slot: Slot): Promise<number> {
    this.#slots.delete(slot);
    clearTimeout(slot.startupTimer);
    slot.channel.cancel();
    return slot.worker.terminate();
  }

  /** Idle workers must not keep the process alive; busy ones, and ones starting for queued runs, must. */
  #updateRefs(): void {
    const queued = this.#lanes.some((lane) => lane.queue.length > 0);
    for (const slot of this.#slots) {
      const referenced = slot.batch !== undefined || (!slot.ready && queued);
      if (referenced === slot.referenced) continue;
      slot.referenced = referenced;
      if (referenced) slot.worker.ref();
      else slot.worker.unref();
    }
  }
}
