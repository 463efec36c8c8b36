/**
 * Isolated runner for operator-stored `getCustomJwtClaims` scripts (SPEC §4.3). Scripts run in QuickJS
 * (WebAssembly) inside a worker thread: QuickJS is the isolation boundary (the guest sees only its own
 * intrinsics and JSON data), the worker keeps a runaway script off the host's event loop. The worker
 * enforces the limits itself; the host additionally kills a worker that overruns the wall-clock limit
 * and starts a fresh one for the next run.
 */
import { Worker } from 'node:worker_threads';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export type SandboxOutcome =
  | { kind: 'claims'; claims: Record<string, unknown> }
  /** The script called `api.denyAccess(message)`. */
  | { kind: 'denied'; message: string }
  | { kind: 'error'; code: 'timeout' | 'memory' | 'syntax' | 'runtime' | 'invalid_result'; message: string };

export interface ScriptInput {
  token: unknown;
  context: unknown;
  environmentVariables: Record<string, string>;
}

export interface ScriptRunner {
  run(script: string, input: ScriptInput): Promise<SandboxOutcome>;
  /** Terminates the worker; pending and later runs answer with a `runtime` error. */
  close(): Promise<void>;
}

/** Host → worker. */
export interface RunRequest {
  id: number;
  script: string;
  inputJson: string;
}

/** Worker → host. */
export type WorkerMessage = { type: 'ready' } | { type: 'result'; id: number; outcome: SandboxOutcome };

/** `.ts` when run from source, `.js` from the published build: the worker file sits beside this one. */
const MODULE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** Slack for the worker's own deadline handling and reply before the host kills it. */
const HOST_TIMEOUT_MARGIN_MS = 250;
const WORKER_STARTUP_TIMEOUT_MS = 10_000;
/** Bounds the worker's own V8 heap; QuickJS memory is limited separately, per run. */
const WORKER_HEAP_MB = 128;

interface PendingRun {
  request: RunRequest;
  resolve: (outcome: SandboxOutcome) => void;
}

function runtimeError(message: string): SandboxOutcome {
  return { kind: 'error', code: 'runtime', message };
}

class WorkerScriptRunner implements ScriptRunner {
  readonly #limits: SandboxLimits;
  readonly #queue: PendingRun[] = [];
  #worker: Worker | undefined;
  #ready = false;
  #startupTimer: NodeJS.Timeout | undefined;
  #current: { run: PendingRun; timer: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #closed = false;

  constructor(limits: SandboxLimits) {
    this.#limits = limits;
  }

  run(script: string, input: ScriptInput): Promise<SandboxOutcome> {
    if (this.#closed) return Promise.resolve(runtimeError('the script runner is closed'));
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
    return new Promise((resolve) => {
      this.#queue.push({ request: { id: this.#nextId++, script, inputJson }, resolve });
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const run of this.#queue.splice(0)) run.resolve(runtimeError('the script runner is closed'));
    this.#finishCurrent(runtimeError('the script runner is closed'));
    const worker = this.#worker;
    this.#discardWorker();
    await worker?.terminate();
  }

  /** Dispatches the next queued run once the worker is idle and ready; one run at a time. */
  #pump(): void {
    if (this.#closed || this.#current || this.#queue.length === 0) return this.#updateRef();
    if (!this.#worker) this.#startWorker();
    if (!this.#ready) return this.#updateRef();
    const run = this.#queue.shift();
    if (!run) return;
    // The timer starts at dispatch, so time spent queued or starting a worker is not charged to the run.
    const timer = setTimeout(() => this.#onTimeout(), this.#limits.timeoutMs + HOST_TIMEOUT_MARGIN_MS);
    timer.unref();
    this.#current = { run, timer };
    this.#worker?.postMessage(run.request);
    this.#updateRef();
  }

  #startWorker(): void {
    const worker = new Worker(new URL(`./sandbox-worker${MODULE_EXTENSION}`, import.meta.url), {
      workerData: this.#limits,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    this.#worker = worker;
    this.#ready = false;
    this.#startupTimer = setTimeout(
      () => this.#onWorkerFailure(worker, new Error('the sandbox worker did not start in time')),
      WORKER_STARTUP_TIMEOUT_MS,
    );
    this.#startupTimer.unref();
    worker.on('message', (message: WorkerMessage) => this.#onMessage(worker, message));
    worker.on('error', (error) => this.#onWorkerFailure(worker, error));
    worker.on('exit', (code) => this.#onWorkerFailure(worker, new Error(`the sandbox worker exited with code ${code}`)));
  }

  #onMessage(worker: Worker, message: WorkerMessage): void {
    if (worker !== this.#worker) return;
    if (message.type === 'ready') {
      this.#ready = true;
      clearTimeout(this.#startupTimer);
    } else if (message.id === this.#current?.run.request.id) {
      this.#finishCurrent(message.outcome);
    }
    this.#pump();
  }

  #onTimeout(): void {
    // The worker missed its own deadline (e.g. stuck in one long native operation): it cannot be trusted
    // to recover, so it is replaced.
    this.#finishCurrent({
      kind: 'error',
      code: 'timeout',
      message: `script exceeded the time limit of ${this.#limits.timeoutMs} ms`,
    });
    this.#replaceWorker();
  }

  #onWorkerFailure(worker: Worker, error: Error): void {
    if (worker !== this.#worker) return;
    const message = `the sandbox worker failed: ${error.message}`;
    this.#finishCurrent(runtimeError(message));
    // A worker that never became ready would fail the same way again: fail the queue instead of looping.
    if (!this.#ready) for (const run of this.#queue.splice(0)) run.resolve(runtimeError(message));
    this.#replaceWorker();
  }

  #finishCurrent(outcome: SandboxOutcome): void {
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    clearTimeout(current.timer);
    current.run.resolve(outcome);
  }

  #replaceWorker(): void {
    const worker = this.#worker;
    this.#discardWorker();
    void worker?.terminate();
    this.#pump();
  }

  #discardWorker(): void {
    clearTimeout(this.#startupTimer);
    this.#worker = undefined;
    this.#ready = false;
  }

  /** An idle worker must not keep the process alive; a busy one must, until its runs are answered. */
  #updateRef(): void {
    if (!this.#worker) return;
    if (this.#current || this.#queue.length > 0) this.#worker.ref();
    else this.#worker.unref();
  }
}

export function createScriptRunner(limits: SandboxLimits): ScriptRunner {
  return new WorkerScriptRunner(limits);
}
