import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Hands back the memory start-up used and no longer needs, once, before the process serves: one full garbage
 * collection of V8's memory-reducing kind ("last resort"). Loading and compiling the modules grows the young generation
 * to its maximum (`--max-semi-space-size`), about 25 MB resident, and V8 keeps it at that size, with the garbage in
 * it, for as long as the process stays idle; this collection shrinks it back and frees the old generation's start-up
 * garbage. It takes about 100 ms of one core. V8's `gc()` is taken from a fresh context, so the process's global
 * object does not get one.
 */
export function releaseStartupMemory(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as NodeJS.GCFunction;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
