import type { Logger } from 'pino';
import type { DocumentStore } from '../ports/documents.ts';
import type { Metrics } from '../metrics/registry.ts';
import { countingTimeouts } from '../metrics/sandbox.ts';
import { createJwtCustomizerConfigs, type JwtCustomizerConfigs } from './config.ts';
import { createClaimsCustomizer, type ClaimsCustomizer, type FunctionCustomizer } from './claims.ts';
import { createSandboxes, type Sandboxes, type ScriptRunner } from './sandbox.ts';

/** Custom access-token claims: the stored script, the in-process function, and the sandboxes that run scripts. */
export interface JwtCustomizer {
  /** The stored customizer script and its settings. */
  configs: JwtCustomizerConfigs;
  /** Computes one access token's custom claims (the function when given, else the stored script). */
  claims: ClaimsCustomizer;
  /** The sandbox for the management API's test runs and compile checks (never the issuance pool). */
  testRunner: () => ScriptRunner;
  /** Stops the sandboxes' workers, if any started. */
  close(): Promise<void>;
}

export function createJwtCustomizer(deps: {
  store: DocumentStore;
  /** An in-process customizer, which takes precedence over a stored script. */
  fn?: FunctionCustomizer;
  logger: Logger;
  metrics: Metrics;
  sandbox: { timeoutMs: number; memoryBytes: number; workers: number };
  /** Audiences a stored script never customizes (the management API's). */
  scriptExemptAudiences: readonly string[];
}): JwtCustomizer {
  const configs = createJwtCustomizerConfigs(deps.store);
  // Started on the first run: a service whose tokens no script customizes starts no worker.
  let sandboxes: Sandboxes | undefined;
  const getSandboxes = () => (sandboxes ??= createSandboxes(deps.sandbox));
  return {
    configs,
    claims: createClaimsCustomizer({
      fn: deps.fn,
      configs,
      logger: deps.logger,
      runner: countingTimeouts(
        () => getSandboxes().issuance,
        () => deps.metrics.sandboxTimeouts.inc({ pool: 'issuance' }),
      ),
      scriptExemptAudiences: deps.scriptExemptAudiences,
    }),
    testRunner: countingTimeouts(
      () => getSandboxes().test,
      () => deps.metrics.sandboxTimeouts.inc({ pool: 'test' }),
    ),
    async close() {
      await sandboxes?.close();
    },
  };
}
