/**
 * Isolated runner for operator-stored `getCustomJwtClaims` scripts (SPEC §4.3). Scripts run in QuickJS
 * (WebAssembly) inside worker threads: QuickJS is the isolation boundary (the guest sees only its own
 * intrinsics and JSON data), the workers keep a runaway script off the host's event loop. A pool of
 * workers serves runs in parallel (see `sandbox-pool.ts`); each worker enforces the limits itself and the
 * host additionally replaces a worker that overruns its deadline or exhausts its memory.
 */
import { SandboxPool } from './sandbox-pool.ts';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export interface PoolOptions extends SandboxLimits {
  /** How many worker threads may run scripts at the same time. */
  workers: number;
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

/** Whether a script compiles, as a run would compile it; the errors are a run's (`syntax`, or the limits). */
export type CheckOutcome = { kind: 'compiled' } | Extract<SandboxOutcome, { kind: 'error' }>;

export interface ScriptRunner {
  /** The time limit counts from this call: time spent waiting for a free worker is part of it. */
  run(script: string, input: ScriptInput): Promise<SandboxOutcome>;
  /** Compiles the script in the sandbox without running any of it, under the same limits as a run. */
  check(script: string): Promise<CheckOutcome>;
  /** Terminates the workers; pending and later runs answer with a `runtime` error. */
  close(): Promise<void>;
}

/** Host → worker. */
export interface RunRequest {
  script: string;
  inputJson: string;
  /** Epoch milliseconds after which the run is interrupted. */
  deadline: number;
  /** Stop once the script compiled, answering empty claims: nothing of it runs. */
  compileOnly: boolean;
  /** False for runs that must neither use nor leave a realm for later runs (see `Realms` in `sandbox-worker.ts`). */
  keepRealm: boolean;
}

/**
 * Worker → host messages: the worker is ready, or the outcome of the current batch's request `index`, too large for
 * the shared block (requests and the other replies travel through `sandbox-channel.ts`).
 */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; index: number; outcome: SandboxOutcome };

export function createScriptRunner(options: PoolOptions): ScriptRunner {
  return new SandboxPool(options).lane(options.workers, true);
}

/**
 * The two sandboxes of a service, sharing their workers: token issuance runs up to `workers` scripts at once, and
 * the management API's test runs and compile checks one more, each in a fresh realm. Neither waits for the other:
 * a run that finds every worker busy with the other's runs gets a worker started for it.
 */
export function createSandboxes(options: PoolOptions) {
  const pool = new SandboxPool(options);
  const issuance = pool.lane(options.workers, true);
  const test = pool.lane(1, false);
  return {
    issuance,
    test,
    async close(): Promise<void> {
      await Promise.all([issuance.close(), test.close()]);
    },
  };
}

export type Sandboxes = ReturnType<typeof createSandboxes>;
