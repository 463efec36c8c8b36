import type { ScriptRunner } from '../jwt-customizer/sandbox.ts';

/**
 * The runner `get` returns, counting every run that ended at the time limit. The wrapper is made once per
 * underlying runner (the sandboxes start lazily), not per call.
 */
export function countingTimeouts(get: () => ScriptRunner, onTimeout: () => void): () => ScriptRunner {
  let current: { inner: ScriptRunner; outer: ScriptRunner } | undefined;
  return () => {
    const inner = get();
    if (current?.inner !== inner) {
      current = {
        inner,
        outer: {
          async run(script, input) {
            const outcome = await inner.run(script, input);
            if (outcome.kind === 'error' && outcome.code === 'timeout') onTimeout();
            return outcome;
          },
          check: (script) => inner.check(script),
          close: () => inner.close(),
        },
      };
    }
    return current.outer;
  };
}
