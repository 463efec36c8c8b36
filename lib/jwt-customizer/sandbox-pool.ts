import { Worker } from 'node:worker_threads';
import type { CheckOutcome, PoolOptions, RunRequest, SandboxOutcome, ScriptInput, ScriptRunner, WorkerMessage } from './sandbox.ts';

/** `.ts` when run from source, `.js` from the published build: the worker file sits beside this one. */
const MODULE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** Slack for the worker's own deadline handling and reply before the host kills it. */
const HOST_TIMEOUT_MARGIN_MS = 250;
const WORKER_STARTUP_TIMEOUT_MS = 10_000;
/** Bounds each worker's own V8 heap; the WebAssembly memory QuickJS runs in is bounded in the worker. */
const WORKER_HEAP_MB = 128;

interface PendingRun {
  request: RunRequest;
  resolve: (outcome: SandboxOutcome) => void;
  /** Fails the run at its deadline while it waits for a worker. */
  queueTimer: NodeJS.Timeout | undefined;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  startupTimer: NodeJS.Timeout;
  current: { run: PendingRun; timer: NodeJS.Timeout } | undefined;
}

function runtimeError(message: string): SandboxOutcome {
  return { kind: 'error', code: 'runtime', message };
}

/**
 * Up to `workers` sandbox workers, each running one script at a time, fed from one queue. Workers start on
 * demand and stay warm; a worker that misses its deadline, exhausts its memory or dies is terminated
 * and replaced.
 */
export class WorkerPool implements ScriptRunner {
  readonly #options: PoolOptions;
  readonly #queue: PendingRun[] = [];
  readonly #slots = new Set<Slot>();
  #nextId = 1;
  #closed = false;

  constructor(options: PoolOptions) {
    if (!Number.isSafeInteger(options.workers) || options.workers < 1) {
      throw new RangeError('the sandbox pool needs at least one worker');
    }
    this.#options = options;
  }

  run(script: string, input: ScriptInput): Promise<SandboxOutcome> {
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
    return this.#submit(script, inputJson, false);
  }

  async check(script: string): Promise<CheckOutcome> {
    const outcome = await this.#submit(script, 'null', true);
    // A compile-only run answers empty claims once the script compiled (see RunRequest.compileOnly).
    return outcome.kind === 'error' ? outcome : { kind: 'compiled' };
  }

  #submit(script: string, inputJson: string, compileOnly: boolean): Promise<SandboxOutcome> {
    if (this.#closed) return Promise.resolve(runtimeError('the script runner is closed'));
    const deadline = Date.now() + this.#options.timeoutMs;
    return new Promise((resolve) => {
      const run: PendingRun = { request: { id: this.#nextId++, script, inputJson, deadline, compileOnly }, resolve, queueTimer: undefined };
      run.queueTimer = setTimeout(() => this.#expire(run), this.#options.timeoutMs);
      this.#queue.push(run);
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const run of this.#queue.splice(0)) {
      clearTimeout(run.queueTimer);
      run.resolve(runtimeError('the script runner is closed'));
    }
    const terminations: Promise<number>[] = [];
    for (const slot of [...this.#slots]) {
      this.#finish(slot, runtimeError('the script runner is closed'));
      terminations.push(this.#retire(slot));
    }
    await Promise.all(terminations);
  }

  #timeout(): SandboxOutcome {
    return { kind: 'error', code: 'timeout', message: `script exceeded the time limit of ${this.#options.timeoutMs} ms` };
  }

  #expire(run: PendingRun): void {
    const index = this.#queue.indexOf(run);
    if (index === -1) return;
    this.#queue.splice(index, 1);
    run.resolve(this.#timeout());
  }

  /** Hands queued runs to idle workers and starts workers for the runs no starting worker will take. */
  #pump(): void {
    if (this.#closed) return;
    for (const slot of this.#slots) {
      while (slot.ready && !slot.current) {
        const run = this.#queue.shift();
        if (!run) break;
        this.#dispatch(slot, run);
      }
    }
    const starting = [...this.#slots].filter((slot) => !slot.ready).length;
    const wanted = Math.min(this.#queue.length - starting, this.#options.workers - this.#slots.size);
    for (let i = 0; i < wanted; i++) this.#start();
    this.#updateRefs();
  }

  /** Leaves the worker idle when the run's deadline has already passed. */
  #dispatch(slot: Slot, run: PendingRun): void {
    clearTimeout(run.queueTimer);
    const remaining = run.request.deadline - Date.now();
    if (remaining <= 0) {
      run.resolve(this.#timeout());
      return;
    }
    const timer = setTimeout(() => this.#onOverrun(slot), remaining + HOST_TIMEOUT_MARGIN_MS);
    slot.current = { run, timer };
    slot.worker.postMessage(run.request);
  }

  #start(): void {
    const worker = new Worker(new URL(`./sandbox-worker${MODULE_EXTENSION}`, import.meta.url), {
      workerData: { timeoutMs: this.#options.timeoutMs, memoryBytes: this.#options.memoryBytes },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const slot: Slot = {
      worker,
      ready: false,
      current: undefined,
      startupTimer: setTimeout(() => this.#onFailure(slot, new Error('the sandbox worker did not start in time')), WORKER_STARTUP_TIMEOUT_MS),
    };
    slot.startupTimer.unref();
    this.#slots.add(slot);
    worker.on('message', (message: WorkerMessage) => this.#onMessage(slot, message));
    worker.on('error', (error) => this.#onFailure(slot, error));
    worker.on('exit', (code) => this.#onFailure(slot, new Error(`the sandbox worker exited with code ${code}`)));
  }

  #onMessage(slot: Slot, message: WorkerMessage): void {
    if (!this.#slots.has(slot)) return;
    if (message.type === 'ready') {
      slot.ready = true;
      clearTimeout(slot.startupTimer);
    } else if (message.id === slot.current?.run.request.id) {
      this.#finish(slot, message.outcome);
      if (!message.reusable) this.#replace(slot);
    }
    this.#pump();
  }

  /** The worker missed its own deadline (e.g. stuck in one long native operation): it cannot be trusted. */
  #onOverrun(slot: Slot): void {
    if (!this.#slots.has(slot)) return;
    this.#finish(slot, this.#timeout());
    this.#replace(slot);
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
      // queue is failed instead of restarting in a loop.
      if (![...this.#slots].some((other) => other.ready)) {
        for (const run of this.#queue.splice(0)) {
          clearTimeout(run.queueTimer);
          run.resolve(runtimeError(`the sandbox worker failed: ${error.message}`));
        }
      }
    }
    this.#pump();
  }

  #finish(slot: Slot, outcome: SandboxOutcome): void {
    const current = slot.current;
    if (!current) return;
    slot.current = undefined;
    clearTimeout(current.timer);
    current.run.resolve(outcome);
  }

  /** Terminates the worker and starts its successor at once, so the pool's capacity stays warm. */
  #replace(slot: Slot): void {
    void this.#retire(slot);
    if (!this.#closed) this.#start();
  }

  #retire(slot: Slot): Promise<number> {
    this.#slots.delete(slot);
    clearTimeout(slot.startupTimer);
    if (slot.current) clearTimeout(slot.current.timer);
    return slot.worker.terminate();
  }

  /** Idle workers must not keep the process alive; busy ones, and ones starting for queued runs, must. */
  #updateRefs(): void {
    for (const slot of this.#slots) {
      if (slot.current || (!slot.ready && this.#queue.length > 0)) slot.worker.ref();
      else slot.worker.unref();
    }
  }
}
