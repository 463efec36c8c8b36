/**
 * Isolated runner for operator-stored `getCustomJwtClaims` scripts (SPEC §4.3). Scripts run in QuickJS
 * (WebAssembly) inside worker threads: QuickJS is the isolation boundary (the guest sees only its own
 * intrinsics and JSON data), the workers keep a runaway script off the host's event loop. A pool of
 * workers serves runs in parallel (see `sandbox-pool.ts`); each worker enforces the limits itself and the
 * host additionally replaces a worker that overruns its deadline or exhausts its memory.
 */
import type { PoolOptions, ScriptRunner } from './sandbox-protocol.ts';
import { SandboxPool } from './sandbox-pool.ts';

export type { SandboxOutcome, ScriptInput, ScriptRunner } from './sandbox-protocol.ts';

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
