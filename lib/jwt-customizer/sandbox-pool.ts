import { Worker } from 'node:worker_threads';
import { HostSide, type Reply } from './sandbox-channel.ts';
import type { CheckOutcome, RunRequest, SandboxLimits, SandboxOutcome, ScriptInput, ScriptRunner, WorkerMessage } from './sandbox.ts';

/** `.ts` when run from source, `.js` from the published build: the worker file sits beside this one. */
const MODULE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** Slack for the worker's own deadline handling and reply before the host kills it. */
const HOST_TIMEOUT_MARGIN_MS = 250;
const WORKER_STARTUP_TIMEOUT_MS = 10_000;
/** Bounds each worker's own V8 heap; the WebAssembly memory QuickJS runs in is bounded in the worker. */
const WORKER_HEAP_MB = 128;
/**
 * How long a lane's queued runs wait without any of them being taken by a worker busy with the lane's own runs
 * before the pool starts another worker for it: a worker serves a trivial script in microseconds, so load alone
 * rarely needs a second one; slow scripts do.
 */
const GROW_AFTER_MS = 250;

interface Lane {
  /** How many of the lane's runs may run at the same time. */
  capacity: number;
  /** Whether its runs may share the warm realm of a script (see `Realms` in `sandbox-worker.ts`). */
  keepRealms: boolean;
  busy: number;
  /** When the lane last handed a run to a worker, or its queue last filled from empty. */
  progressAt: number;
  /** Oldest first; runs queue with the same time limit, so this is also by deadline. */
  queue: PendingRun[];
  closed: boolean;
}

interface PendingRun {
  lane: Lane;
  script: string;
  inputJson: string;
  /** Epoch milliseconds: the time limit counts from the call. */
  deadline: number;
  compileOnly: boolean;
  resolve: (outcome: SandboxOutcome) => void;
}

interface Slot {
  worker: Worker;
  channel: HostSide;
  ready: boolean;
  referenced: boolean;
  startupTimer: NodeJS.Timeout;
  current: PendingRun | undefined;
}

function runtimeError(message: string): SandboxOutcome {
  return { kind: 'error', code: 'runtime', message };
}

const closed = () => runtimeError('the script runner is closed');

/**
 * Sandbox workers shared by lanes of runs (token issuance, and the management API's test runs), each worker
 * running one script at a time. A lane never runs more than its capacity at once and never waits for another
 * lane's runs: when every worker is busy with other lanes, another starts at once. Workers start on demand, the
 * first with the first run and each further one only when a lane's queued runs have waited `GROW_AFTER_MS`
 * without one being taken, up to the lanes' capacities together; they stay warm. A worker that misses its
 * deadline, exhausts its memory or dies is terminated and replaced (the last one at once, others as runs need
 * them). One timer follows every deadline, instead of one per run.
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
          return Promise.resolve(runtimeError(`the script input is not JSON-serialisable: ${(error as Error).message}`));
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
      lane.queue.push({ lane, script, inputJson, deadline, compileOnly, resolve });
      this.#pump();
    });
  }

  /** Fails the lane's queued and running runs (a worker running one is terminated); the last lane closes the pool. */
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
      if (!closing && slot.current?.lane !== lane) continue;
      this.#finish(slot, closed());
      terminations.push(this.#retire(slot));
    }
    // The other lanes' queued runs may need a worker in place of those retired.
    this.#pump();
    await Promise.all(terminations);
  }

  #timeout(): SandboxOutcome {
    return { kind: 'error', code: 'timeout', message: `script exceeded the time limit of ${this.#limits.timeoutMs} ms` };
  }

  /** Hands queued runs to idle workers, starts a worker when one is needed and follows the deadlines. */
  #pump(): void {
    if (this.#closed) return;
    for (const lane of this.#lanes) {
      while (lane.queue.length > 0 && lane.busy < lane.capacity) {
        const slot = this.#idle();
        if (!slot) break;
        this.#dispatch(slot, lane.queue.shift() as PendingRun);
      }
    }
    const growAt = this.#grow();
    this.#updateRefs();
    this.#arm(growAt);
  }

  #idle(): Slot | undefined {
    for (const slot of this.#slots) if (slot.ready && !slot.current) return slot;
    return undefined;
  }

  /** Leaves the worker idle when the run's deadline has already passed. */
  #dispatch(slot: Slot, run: PendingRun): void {
    if (run.deadline <= Date.now()) {
      run.resolve(this.#timeout());
      return;
    }
    slot.current = run;
    run.lane.busy += 1;
    run.lane.progressAt = Date.now();
    const request: RunRequest = {
      script: run.script, inputJson: run.inputJson, deadline: run.deadline, compileOnly: run.compileOnly, keepRealm: run.lane.keepRealms,
    };
    slot.channel.send(request, (oversized) => slot.worker.postMessage(oversized), (reply) => {
      if (reply) this.#onReply(slot, run, reply);
    });
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

  /** Keeps the one timer set for the earliest of: a queued run's deadline, a running one's overrun, `growAt`. */
  #arm(growAt: number): void {
    let next = growAt;
    for (const lane of this.#lanes) {
      const head = lane.queue[0];
      if (head && head.deadline < next) next = head.deadline;
    }
    for (const slot of this.#slots) {
      if (slot.current && slot.current.deadline + HOST_TIMEOUT_MARGIN_MS < next) {
        next = slot.current.deadline + HOST_TIMEOUT_MARGIN_MS;
      }
    }
    if (next === Infinity || next >= this.#sweepAt) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = next;
    // Unreferenced: every pending run has a referenced worker (see #updateRefs).
    this.#sweepTimer = setTimeout(() => this.#sweep(), Math.max(0, next - Date.now())).unref();
  }

  /** Fails queued runs at their deadline and replaces a worker still running past its run's deadline. */
  #sweep(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Infinity;
    const now = Date.now();
    for (const lane of this.#lanes) {
      while (lane.queue[0] && lane.queue[0].deadline <= now) (lane.queue.shift() as PendingRun).resolve(this.#timeout());
    }
    for (const slot of [...this.#slots]) {
      // The worker missed its own deadline (e.g. stuck in one long native operation): it cannot be trusted.
      if (slot.current && slot.current.deadline + HOST_TIMEOUT_MARGIN_MS <= now) {
        this.#finish(slot, this.#timeout());
        this.#replace(slot);
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
      current: undefined,
      startupTimer: setTimeout(() => this.#onFailure(slot, new Error('the sandbox worker did not start in time')), WORKER_STARTUP_TIMEOUT_MS),
    };
    slot.startupTimer.unref();
    this.#slots.add(slot);
    worker.on('message', (message: WorkerMessage) => {
      if (!this.#slots.has(slot)) return;
      if (message.type === 'ready') {
        slot.ready = true;
        clearTimeout(slot.startupTimer);
        this.#pump();
      } else if (slot.current) {
        this.#onReply(slot, slot.current, message);
      }
    });
    worker.on('error', (error) => this.#onFailure(slot, error));
    worker.on('exit', (code) => this.#onFailure(slot, new Error(`the sandbox worker exited with code ${code}`)));
  }

  /** A reply of the slot's worker to `run`, when that is still the run it serves. */
  #onReply(slot: Slot, run: PendingRun, reply: Reply): void {
    if (!this.#slots.has(slot) || slot.current !== run) return;
    this.#finish(slot, reply.outcome);
    if (!reply.reusable) this.#replace(slot);
    this.#pump();
  }

  #onFailure(slot: Slot, error: Error & { code?: string }): void {
    if (!this.#slots.has(slot)) return;
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    this.#finish(slot, outOfMemory
      ? { kind: 'error', code: 'memory', message: 'script exceeded the memory limit of the sandbox worker' }
      : runtimeError(`the sandbox worker failed: ${error.message}`));
    if (slot.ready) {
      this.#replace(slot);
    } else {
      void this.#retire(slot);
      // A worker that never became ready would fail the same way again: without a working worker the
      // queues are failed instead of restarting in a loop.
      if (![...this.#slots].some((other) => other.ready)) {
        for (const lane of this.#lanes) {
          for (const run of lane.queue.splice(0)) run.resolve(runtimeError(`the sandbox worker failed: ${error.message}`));
        }
      }
    }
    this.#pump();
  }

  #finish(slot: Slot, outcome: SandboxOutcome): void {
    const current = slot.current;
    if (!current) return;
    slot.current = undefined;
    current.lane.busy -= 1;
    current.resolve(outcome);
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
      const referenced = slot.current !== undefined || (!slot.ready && queued);
      if (referenced === slot.referenced) continue;
      slot.referenced = referenced;
      if (referenced) slot.worker.ref();
      else slot.worker.unref();
    }
  }
}
