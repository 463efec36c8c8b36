/**
 * What a script runner promises and what the host and its sandbox workers exchange: shared by the runner
 * (`sandbox.ts`), its pool, the channel between them and the worker, so none of them depends on another for it.
 */
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
export type WorkerMessage = { type: 'ready' } | { type: 'result'; index: number; outcome: SandboxOutcome };
