/**
 * Worker side of the JWT customizer sandbox (see `sandbox.ts`). A script runs in a QuickJS runtime and context
 * of its own (its realm), kept warm for the script's next runs in this worker; another script never sees it.
 * Only strings cross the boundary: the input goes in as JSON text and the outcome comes out as JSON text built
 * by a guest-side driver.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import type { RunRequest, SandboxLimits, SandboxOutcome, WorkerMessage } from './sandbox-protocol.ts';
import { isPlainObject } from '../plain-object.ts';
import { WorkerSide } from './sandbox-channel.ts';

const SCRIPT_FILENAME = 'jwt-customizer.js';
const WASM_PAGE_BYTES = 64 * 1024;
/** The QuickJS build's own memory (its INITIAL_MEMORY: static data, C stack, first heap pages). */
const QUICKJS_BASE_BYTES = 16 * 1024 * 1024;
const MAX_STACK_BYTES = 256 * 1024;
const MAX_MESSAGE_LENGTH = 1024;
const JOBS_PER_DEADLINE_CHECK = 1000;
/** A script's realm is rebuilt after this many runs, which bounds how long what a script keeps can live. */
const MAX_RUNS_PER_REALM = 1000;

/**
 * Evaluated before the operator's script, so the intrinsics it captures cannot have been tampered with. It returns
 * the functions through which the host runs `getCustomJwtClaims` and turns its result into the outcome's JSON
 * text; the global `getCustomJwtClaims` is looked up at call time, which also finds top-level `const`/`let`
 * declarations of the later script (they share the global lexical scope).
 *
 * `run` calls the script. A result that cannot be a promise is settled at once (`run` answers the outcome's
 * text); a thenable goes back to the host, which reads the state of a promise directly: a settled one is handed
 * to `finish` or `fail` without a turn of the job queue (an `async` script that never waits settles this way),
 * anything else to `later`, which awaits it as an `await` would and runs with the job queue.
 */
const DRIVER_SOURCE = `(() => {
  const { parse, stringify } = JSON;
  const { getPrototypeOf } = Object;
  const objectPrototype = Object.prototype;
  const { isArray } = Array;
  const TypeErrorClass = TypeError;
  const ErrorClass = Error;
  const invalid = (message) => stringify({ kind: 'error', code: 'invalid_result', message });
  // The run in progress: a denyAccess kept from an earlier run marks only that run.
  let current = { denial: undefined };

  const finish = (result) => {
    // A call to denyAccess decides the outcome even if the script catches the error it throws.
    if (current.denial) return stringify(current.denial);
    if (result === undefined) result = {};
    if (typeof result !== 'object' || result === null || isArray(result)) {
      return invalid('getCustomJwtClaims must return a plain object, got ' + (isArray(result) ? 'an array' : String(result)));
    }
    const prototype = getPrototypeOf(result);
    if (prototype !== objectPrototype && prototype !== null) {
      return invalid('getCustomJwtClaims must return a plain object');
    }
    try {
      return stringify({ kind: 'claims', claims: result });
    } catch (error) {
      if (error instanceof TypeErrorClass) return invalid('the returned claims are not JSON-serialisable: ' + error.message);
      throw error;
    }
  };
  const fail = (error) => {
    if (current.denial) return stringify(current.denial);
    throw error;
  };
  const later = async (value) => {
    let result;
    try {
      result = await value;
    } catch (error) {
      return fail(error);
    }
    return finish(result);
  };
  const run = (inputJson) => {
    if (typeof getCustomJwtClaims !== 'function') {
      return stringify({ kind: 'error', code: 'runtime', message: 'the script must define a function named getCustomJwtClaims' });
    }
    const state = { denial: undefined };
    current = state;
    const api = {
      denyAccess(message) {
        state.denial = { kind: 'denied', message: message === undefined ? '' : String(message) };
        throw new ErrorClass('access denied');
      },
    };
    const { token, context, environmentVariables } = parse(inputJson);
    let result;
    try {
      result = getCustomJwtClaims({ token, context, environmentVariables, api });
      if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function') {
        return result;
      }
    } catch (error) {
      return fail(error);
    }
    return finish(result);
  };
  return { run, finish, fail, later };
})()`;

/** The driver's functions (see `DRIVER_SOURCE`). */
interface Driver {
  run: QuickJSHandle;
  finish: QuickJSHandle;
  fail: QuickJSHandle;
  later: QuickJSHandle;
}

type CallResult = ReturnType<QuickJSContext['callFunction']>;

function truncate(text: string): string {
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/** Reads a string property without letting a failing getter escape as a host exception. */
function readStringProperty(ctx: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
  try {
    const property = ctx.getProp(handle, key);
    const value = ctx.typeof(property) === 'string' ? ctx.getString(property) : undefined;
    property.dispose();
    return value;
  } catch {
    return undefined;
  }
}

/** Guest error values are described from `name` and `message` only: guest stacks stay inside. */
function describeThrown(ctx: QuickJSContext, handle: QuickJSHandle): { name: string | undefined; message: string } {
  if (ctx.typeof(handle) === 'object') {
    const name = readStringProperty(ctx, handle, 'name');
    const message = readStringProperty(ctx, handle, 'message');
    if (name !== undefined || message !== undefined) return { name, message: message ?? '' };
  }
  let value: unknown;
  try {
    value = ctx.dump(handle);
  } catch {
    value = '(unprintable value)';
  }
  return { name: undefined, message: typeof value === 'string' ? value : String(JSON.stringify(value) ?? value) };
}

/** Decodes the driver's JSON envelope; anything malformed is the script's fault. */
function decodeEnvelope(text: string): SandboxOutcome {
  // `__proto__` keys would turn into prototype setters when the host merges the claims into a token. Only a text
  // that spells it, or has an escape that could, can hold one: the others skip the slower parse that drops them.
  const envelope: unknown =
    text.includes('__proto__') || text.includes('\\u')
      ? JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value))
      : JSON.parse(text);
  if (isPlainObject(envelope)) {
    if (envelope.kind === 'claims' && isPlainObject(envelope.claims)) {
      return { kind: 'claims', claims: envelope.claims };
    }
    if (envelope.kind === 'denied' && typeof envelope.message === 'string') {
      return { kind: 'denied', message: truncate(envelope.message) };
    }
    if (
      envelope.kind === 'error' &&
      (envelope.code === 'runtime' || envelope.code === 'invalid_result') &&
      typeof envelope.message === 'string'
    ) {
      return { kind: 'error', code: envelope.code, message: truncate(envelope.message) };
    }
  }
  return { kind: 'error', code: 'invalid_result', message: 'getCustomJwtClaims must return a plain JSON object' };
}

/**
 * One script's realm: a QuickJS runtime and context in which the driver and the script's top level have run.
 * Runs of the same script reuse it (creating a context costs far more than a call), so what a script keeps in
 * its own top-level variables may be seen by its next runs in this worker, as in a warm serverless function;
 * each run's input is parsed afresh. A realm that failed in any way is never reused. Every handle is disposed
 * before the runtime is.
 */
class Realm {
  readonly script: string;
  /** Runs served so far; the worker starts a new realm after `MAX_RUNS_PER_REALM`. */
  runs = 0;
  readonly #limits: SandboxLimits;
  readonly #runtime: QuickJSRuntime;
  readonly #ctx: QuickJSContext;
  #driver: Driver | undefined;
  #deadline = 0;
  #interrupted = false;

  constructor(module: QuickJSWASMModule, limits: SandboxLimits, script: string) {
    this.script = script;
    this.#limits = limits;
    this.#runtime = module.newRuntime();
    this.#runtime.setMemoryLimit(limits.memoryBytes);
    this.#runtime.setMaxStackSize(MAX_STACK_BYTES);
    this.#runtime.setInterruptHandler(() => {
      if (Date.now() > this.#deadline) this.#interrupted = true;
      return this.#interrupted;
    });
    this.#ctx = this.#runtime.newContext();
  }

  /** Whether the realm can serve another run: nothing failed and nothing of a run is still pending. */
  get reusable(): boolean {
    return this.#driver !== undefined && !this.#interrupted && !this.#runtime.hasPendingJob();
  }

  /** Compiles the script (a syntax error is told apart from one thrown while it runs) and nothing more. */
  compile(deadline: number): SandboxOutcome | undefined {
    this.#deadline = deadline;
    const compiled = this.#ctx.evalCode(this.script, SCRIPT_FILENAME, { type: 'global', compileOnly: true });
    if (compiled.error) return this.#failure(compiled.error, 'syntax');
    compiled.value.dispose();
    return undefined;
  }

  /** Compiles the script, then evaluates the driver and the script's top level; an error outcome when either fails. */
  prepare(deadline: number): SandboxOutcome | undefined {
    const failed = this.compile(deadline);
    if (failed) return failed;
    const driver = this.#ctx.evalCode(DRIVER_SOURCE, 'driver.js', { type: 'global', strict: true });
    if (driver.error) return this.#failure(driver.error, 'runtime');
    const get = (name: keyof Driver) => this.#ctx.getProp(driver.value, name);
    const functions: Driver = { run: get('run'), finish: get('finish'), fail: get('fail'), later: get('later') };
    driver.value.dispose();
    const evaluated = this.#ctx.evalCode(this.script, SCRIPT_FILENAME, { type: 'global' });
    if (evaluated.error) {
      for (const handle of Object.values(functions)) handle.dispose();
      return this.#failure(evaluated.error, 'runtime');
    }
    evaluated.value.dispose();
    this.#driver = functions;
    return undefined;
  }

  /** Calls `getCustomJwtClaims` once, through the driver, on this run's input. */
  call(inputJson: string, deadline: number): SandboxOutcome {
    const driver = this.#driver;
    if (!driver) return { kind: 'error', code: 'runtime', message: 'the script is not prepared' };
    this.#deadline = deadline;
    this.runs += 1;
    const input = this.#ctx.newString(inputJson);
    const called = this.#ctx.callFunction(driver.run, this.#ctx.undefined, [input]);
    input.dispose();
    return this.#outcome(called, driver);
  }

  dispose(): void {
    if (this.#driver) for (const handle of Object.values(this.#driver)) handle.dispose();
    this.#driver = undefined;
    this.#ctx.dispose();
    this.#runtime.dispose();
  }

  /**
   * The outcome of a driver call: its text, or, for the thenable `run` answered (when `driver` is given), the
   * outcome of the driver call that settles it.
   */
  #outcome(called: CallResult, driver?: Driver): SandboxOutcome {
    if (called.error) return this.#failure(called.error, 'runtime');
    const value = called.value;
    try {
      if (this.#ctx.typeof(value) === 'string') return decodeEnvelope(this.#ctx.getString(value));
      return driver ? this.#outcome(this.#settleThenable(driver, value)) : this.#settle(value);
    } finally {
      value.dispose();
    }
  }

  /**
   * Hands a promise that has settled to `finish` or `fail`, which answer the outcome's text; anything else (a pending
   * promise, another thenable) to `later`, which answers a promise of it.
   */
  #settleThenable(driver: Driver, thenable: QuickJSHandle): CallResult {
    const ctx = this.#ctx;
    const state = ctx.getPromiseState(thenable);
    if (state.type === 'pending' || 'notAPromise' in state)
      return ctx.callFunction(driver.later, ctx.undefined, [thenable]);
    const settled = state.type === 'fulfilled' ? state.value : state.error;
    try {
      return ctx.callFunction(state.type === 'fulfilled' ? driver.finish : driver.fail, ctx.undefined, [settled]);
    } finally {
      settled.dispose();
    }
  }

  /** Runs pending jobs until the driver's promise settles or the deadline passes. */
  #settle(promise: QuickJSHandle): SandboxOutcome {
    const ctx = this.#ctx;
    for (;;) {
      const state = ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        const text = ctx.typeof(state.value) === 'string' ? ctx.getString(state.value) : undefined;
        state.value.dispose();
        return text === undefined ? decodeEnvelope('null') : decodeEnvelope(text);
      }
      if (state.type === 'rejected') return this.#failure(state.error, 'runtime');
      if (this.#interrupted || Date.now() > this.#deadline) return this.#timeout();
      // Without timers or host callbacks, a promise with no pending jobs can never settle.
      if (!ctx.runtime.hasPendingJob()) {
        return { kind: 'error', code: 'timeout', message: 'getCustomJwtClaims returned a promise that never settles' };
      }
      const jobs = ctx.runtime.executePendingJobs(JOBS_PER_DEADLINE_CHECK);
      if (jobs.error) return this.#failure(jobs.error, 'runtime');
    }
  }

  #failure(error: QuickJSHandle, code: 'syntax' | 'runtime'): SandboxOutcome {
    const { name, message } = this.#interrupted ? { name: undefined, message: '' } : describeThrown(this.#ctx, error);
    error.dispose();
    if (this.#interrupted) return this.#timeout();
    if (name === 'InternalError' && message === 'out of memory') {
      return {
        kind: 'error',
        code: 'memory',
        message: `script exceeded the memory limit of ${this.#limits.memoryBytes} bytes`,
      };
    }
    return { kind: 'error', code, message: truncate(name ? `${name}: ${message}` : message) };
  }

  #timeout(): SandboxOutcome {
    // An interrupted realm is never reused: mark it so even when the deadline passed between two checks.
    this.#interrupted = true;
    return {
      kind: 'error',
      code: 'timeout',
      message: `script exceeded the time limit of ${this.#limits.timeoutMs} ms`,
    };
  }
}

/**
 * Serves the requests of one worker, keeping the realm of the last script run (at most one, so the worker's
 * memory holds at most one script's state besides the run in progress). A run that must not share a realm
 * (`keepRealm: false`, the management API's test runs) gets a fresh one, dropped after it, and drops the kept one
 * first: it neither sees nor leaves state, and has the whole memory limit to itself.
 */
class Realms {
  readonly #module: QuickJSWASMModule;
  readonly #limits: SandboxLimits;
  #warm: Realm | undefined;

  constructor(module: QuickJSWASMModule, limits: SandboxLimits) {
    this.#module = module;
    this.#limits = limits;
  }

  serve(request: RunRequest): SandboxOutcome {
    const { script, inputJson, deadline, compileOnly, keepRealm } = request;
    let realm = this.#warm;
    this.#warm = undefined;
    if (realm && (compileOnly || !keepRealm || realm.script !== script || realm.runs >= MAX_RUNS_PER_REALM)) {
      realm.dispose();
      realm = undefined;
    }
    if (!realm) {
      realm = new Realm(this.#module, this.#limits, script);
      const failed = compileOnly ? realm.compile(deadline) : realm.prepare(deadline);
      if (failed || compileOnly) {
        realm.dispose();
        return failed ?? { kind: 'claims', claims: {} };
      }
    }
    let outcome: SandboxOutcome;
    try {
      outcome = realm.call(inputJson, deadline);
    } catch (error) {
      realm.dispose();
      throw error;
    }
    if (keepRealm && outcome.kind !== 'error' && realm.reusable) this.#warm = realm;
    else realm.dispose();
    return outcome;
  }
}

/**
 * The runtime's memory limit only counts what QuickJS accounts for (typed-array storage escapes it), so
 * the WebAssembly memory itself gets a maximum: whatever a script allocates, this worker never holds more
 * than the limit plus what QuickJS needs to exist. Growth past it fails as an ordinary out-of-memory.
 */
function boundedMemory(memoryBytes: number): object {
  const pages = (bytes: number) => Math.ceil(bytes / WASM_PAGE_BYTES);
  // The project's type libraries do not declare the WebAssembly global, so its one constructor is typed here.
  const wasm: { Memory: new (descriptor: { initial: number; maximum: number }) => object } = Reflect.get(
    globalThis,
    'WebAssembly',
  );
  return new wasm.Memory({
    initial: pages(QUICKJS_BASE_BYTES),
    maximum: pages(QUICKJS_BASE_BYTES + memoryBytes),
  });
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('sandbox-worker must run in a worker thread');
  const { buffer, ...limits } = workerData as SandboxLimits & { buffer: SharedArrayBuffer };
  const channel = new WorkerSide(buffer);
  const module = await newQuickJSWASMModule(
    newVariant(RELEASE_SYNC, { wasmMemory: boundedMemory(limits.memoryBytes) }),
  );
  const realms = new Realms(module, limits);
  const fromMessage = (): RunRequest => {
    const received = receiveMessageOnPort(port);
    if (!received) throw new Error('the announced request did not arrive');
    return received.message as RunRequest;
  };
  const ready: WorkerMessage = { type: 'ready' };
  port.postMessage(ready);
  const post = (index: number, outcome: SandboxOutcome) => {
    const message: WorkerMessage = { type: 'result', index, outcome };
    port.postMessage(message);
  };
  // The thread serves nothing but runs: between batches it sleeps in the channel, never in its event loop.
  for (;;) {
    const requests = channel.receive(fromMessage);
    let reusable = true;
    for (let index = 0; index < requests.length && reusable && channel.claim(index); index += 1) {
      let outcome: SandboxOutcome;
      try {
        outcome = realms.serve(requests[index] as RunRequest);
      } catch (error) {
        // A failure of the sandbox machinery itself (not of the script), e.g. the host glue unable to
        // allocate: the module's state is unknown, so the host replaces this worker.
        outcome = { kind: 'error', code: 'runtime', message: `sandbox failure: ${(error as Error).message}` };
        reusable = false;
      }
      // WebAssembly memory never shrinks: after an exhausted heap only a new worker gives it back.
      if (outcome.kind === 'error' && outcome.code === 'memory') reusable = false;
      channel.reply(index, outcome, post);
    }
    channel.finish(reusable);
  }
}

await main();
