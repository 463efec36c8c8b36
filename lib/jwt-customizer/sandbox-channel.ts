/**
 * How the host and a sandbox worker hand runs over (see `sandbox-pool.ts`): a block of shared memory per worker
 * holding a batch of requests, then their replies. The host writes the batch and the worker, waiting for it in
 * `Atomics.wait` (it has nothing else to do), reads all of it; it then runs the requests in order, writing each
 * reply over the requests it has read, and says the batch is answered once. The host, waiting for that in
 * `Atomics.waitAsync`, reads the replies on its event loop. Neither side thus runs a message event or a structured
 * clone for a run, a request for the script the worker already has leaves the script out, and the runs queued while
 * the worker was busy cost one wake-up of each side together instead of one each.
 *
 * Each request of a batch has a claim slot: the worker claims a request before running it and the host may take
 * back a request not claimed yet (when the run before it takes too long, see `SandboxPool`), so a request is run
 * by the worker or handed back, never both. The worker stops at the first request taken back; the ones after it
 * are taken back too.
 *
 * A request too large for the block travels alone as a message, announced through the block; a reply too large
 * for what is left of the block travels as a message naming its request.
 */
import type { RunRequest, SandboxOutcome } from './sandbox-protocol.ts';

/** Int32 slots of the header. */
const STATE = 0;
const COUNT = 1;
const REPLY = 2;
/** How many requests of the batch the worker has answered; the host reads it without a wake-up. */
const DONE = 3;
const REPLY_FLAGS = 4;
/** When the worker started its current run (epoch ms, a float64 at this byte offset). */
const STARTED_AT_OFFSET = 24;
const HEADER_BYTES = 32;

/** Most requests in one batch. */
export const MAX_BATCH = 32;
/** Int32 slots of each request's entry. */
const ENTRY_SLOTS = 5;
const SCRIPT_BYTES = 0;
const INPUT_BYTES = 1;
const FLAGS = 2;
/** Of the reply, or AS_MESSAGE. */
const REPLY_BYTES = 3;
const CLAIM = 4;
const ENTRIES_OFFSET = HEADER_BYTES;
const DEADLINES_OFFSET = ENTRIES_OFFSET + MAX_BATCH * ENTRY_SLOTS * 4;
/** Byte offset of the text after the header and the entries. */
const TEXT_OFFSET = DEADLINES_OFFSET + MAX_BATCH * 8;
/** Text room of a block: a batch of token scripts' inputs fits; larger requests go as messages. */
const TEXT_BYTES = 64 * 1024;

/** Values of the STATE and REPLY slots. */
const EMPTY = 0;
const IN_BLOCK = 1;
const AS_MESSAGE = -1;
/** In REPLY: the host gave up on the worker (see `HostSide.cancel`). */
const CANCELLED = 3;
/** In SCRIPT_BYTES: the request runs the same script as the one before it. */
const SAME_SCRIPT = -1;

/** Values of a request's CLAIM slot. */
const PENDING = 0;
const CLAIMED = 1;
const TAKEN_BACK = 2;

/** Bits of FLAGS. */
const COMPILE_ONLY = 1;
const KEEP_REALM = 2;
/** Bits of REPLY_FLAGS. */
const REUSABLE = 1;

const encoder = new TextEncoder();

/**
 * The worker's answer to a batch: the outcome of each request it answered, in order (`undefined` for a reply that
 * comes as a message); the requests after those were not run. `reusable: false` asks the host to replace the worker
 * (its memory is spent or unknown).
 */
export interface BatchReply {
  outcomes: (SandboxOutcome | undefined)[];
  reusable: boolean;
}

class Block {
  readonly buffer: SharedArrayBuffer;
  protected readonly header: Int32Array;
  protected readonly runStart: Float64Array;
  protected readonly entries: Int32Array;
  protected readonly deadlines: Float64Array;
  protected readonly bytes: Uint8Array;
  protected readonly text: Buffer;

  constructor(buffer = new SharedArrayBuffer(TEXT_OFFSET + TEXT_BYTES)) {
    this.buffer = buffer;
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.runStart = new Float64Array(buffer, STARTED_AT_OFFSET, 1);
    this.entries = new Int32Array(buffer, ENTRIES_OFFSET, MAX_BATCH * ENTRY_SLOTS);
    this.deadlines = new Float64Array(buffer, DEADLINES_OFFSET, MAX_BATCH);
    this.bytes = new Uint8Array(buffer, TEXT_OFFSET);
    this.text = Buffer.from(buffer, TEXT_OFFSET);
  }

  /** Writes `text` at `offset` of the text area; the bytes written, or -1 when it does not fit. */
  protected write(text: string, offset: number): number {
    const { read, written } = encoder.encodeInto(text, this.bytes.subarray(offset));
    return read === text.length ? written : -1;
  }

  protected read(offset: number, length: number): string {
    return this.text.toString('utf8', offset, offset + length);
  }
}

/** The host's side of a worker's block. */
export class HostSide extends Block {
  /** The script of the last request handed over, which the worker keeps. */
  #script: string | undefined;

  /**
   * Hands the worker as many of `requests`, from the first, as fit one batch (a first one too large for the block
   * goes alone, through `post`, before it is announced) and answers how many. `onReply` runs on the event loop once
   * the worker answered the batch, or with nothing when the host cancelled.
   */
  send(
    requests: readonly RunRequest[],
    post: (request: RunRequest) => void,
    onReply: (reply: BatchReply | undefined) => void,
  ): number {
    const { header, entries, deadlines } = this;
    let script = this.#script;
    let offset = 0;
    let count = 0;
    for (const request of requests) {
      if (count === MAX_BATCH) break;
      const sameScript = request.script === script;
      const scriptBytes = sameScript ? 0 : this.write(request.script, offset);
      const inputBytes = scriptBytes < 0 ? -1 : this.write(request.inputJson, offset + scriptBytes);
      if (inputBytes < 0) break;
      const entry = count * ENTRY_SLOTS;
      entries[entry + SCRIPT_BYTES] = sameScript ? SAME_SCRIPT : scriptBytes;
      entries[entry + INPUT_BYTES] = inputBytes;
      entries[entry + FLAGS] = (request.compileOnly ? COMPILE_ONLY : 0) | (request.keepRealm ? KEEP_REALM : 0);
      Atomics.store(entries, entry + CLAIM, PENDING);
      deadlines[count] = request.deadline;
      script = request.script;
      offset += scriptBytes + inputBytes;
      count += 1;
    }
    Atomics.store(header, REPLY, EMPTY);
    Atomics.store(header, DONE, 0);
    // The waiter is in place before the worker can answer, so the answer always arrives on a later turn.
    this.#awaitReply(onReply);
    if (count === 0) {
      const request = requests[0] as RunRequest;
      post(request);
      Atomics.store(entries, CLAIM, PENDING);
      this.#script = request.script;
      Atomics.store(header, STATE, AS_MESSAGE);
      count = 1;
    } else {
      this.#script = script;
      header[COUNT] = count;
      Atomics.store(header, STATE, IN_BLOCK);
    }
    Atomics.notify(header, STATE);
    return count;
  }

  /** How many requests of the current batch the worker has answered so far. */
  done(): number {
    return Atomics.load(this.header, DONE);
  }

  /** When the worker started the run it is on, or last ran (epoch ms). */
  startedAt(): number {
    return this.runStart[0] ?? 0;
  }

  /**
   * The outcomes of the first `count` requests of the current batch, which the worker has answered (`undefined` for
   * a reply that comes as a message).
   */
  outcomes(count: number): (SandboxOutcome | undefined)[] {
    const outcomes: (SandboxOutcome | undefined)[] = [];
    let offset = 0;
    for (let index = 0; index < count; index += 1) {
      const bytes = this.entries[index * ENTRY_SLOTS + REPLY_BYTES] ?? AS_MESSAGE;
      if (bytes < 0) {
        outcomes.push(undefined);
      } else {
        outcomes.push(JSON.parse(this.read(offset, bytes)) as SandboxOutcome);
        offset += bytes;
      }
    }
    return outcomes;
  }

  /**
   * Takes back the requests of the current batch from `from` on that the worker has not claimed: answers the index
   * of the first one taken back (all after it are taken back too), or `count` when the worker claimed them all.
   */
  takeBack(from: number, count: number): number {
    let first = count;
    for (let index = from; index < count; index += 1) {
      const taken = Atomics.compareExchange(this.entries, index * ENTRY_SLOTS + CLAIM, PENDING, TAKEN_BACK) === PENDING;
      if (taken && first === count) first = index;
    }
    return first;
  }

  /** Releases the host's wait for a reply from a worker it gave up on; the reply callback then receives nothing. */
  cancel(): void {
    Atomics.store(this.header, REPLY, CANCELLED);
    Atomics.notify(this.header, REPLY);
  }

  /** Waits for the REPLY slot to leave EMPTY (a wake-up that finds it still EMPTY waits again). */
  #awaitReply(onReply: (reply: BatchReply | undefined) => void): void {
    const waited = Atomics.waitAsync(this.header, REPLY, EMPTY);
    if (!waited.async) {
      onReply(this.#reply());
      return;
    }
    void waited.value.then(() => {
      if (Atomics.load(this.header, REPLY) === EMPTY) this.#awaitReply(onReply);
      else onReply(this.#reply());
    });
  }

  #reply(): BatchReply | undefined {
    const header = this.header;
    if (Atomics.load(header, REPLY) !== IN_BLOCK) return undefined;
    return { outcomes: this.outcomes(this.done()), reusable: ((header[REPLY_FLAGS] ?? 0) & REUSABLE) !== 0 };
  }
}

/** The worker's side of its block. */
export class WorkerSide extends Block {
  #script = '';
  /** Where the next reply of the batch goes in the text area. */
  #replyOffset = 0;

  /**
   * Blocks until the host hands over a batch and reads all of it; `fromMessage` fetches a request that came as a
   * message. Only the STATE slot says a batch is there: a wake-up that finds it empty waits again rather than read
   * what the block holds then (the last replies, over the last requests).
   */
  receive(fromMessage: () => RunRequest): RunRequest[] {
    const { header, entries, deadlines } = this;
    let state = Atomics.exchange(header, STATE, EMPTY);
    while (state === EMPTY) {
      Atomics.wait(header, STATE, EMPTY);
      state = Atomics.exchange(header, STATE, EMPTY);
    }
    this.#replyOffset = 0;
    if (state === AS_MESSAGE) {
      const request = fromMessage();
      this.#script = request.script;
      return [request];
    }
    const requests: RunRequest[] = [];
    const count = header[COUNT] ?? 0;
    let offset = 0;
    for (let index = 0; index < count; index += 1) {
      const entry = index * ENTRY_SLOTS;
      const scriptBytes = entries[entry + SCRIPT_BYTES] ?? 0;
      if (scriptBytes !== SAME_SCRIPT) {
        this.#script = this.read(offset, scriptBytes);
        offset += scriptBytes;
      }
      const inputBytes = entries[entry + INPUT_BYTES] ?? 0;
      const flags = entries[entry + FLAGS] ?? 0;
      requests.push({
        script: this.#script,
        inputJson: this.read(offset, inputBytes),
        deadline: deadlines[index] ?? 0,
        compileOnly: (flags & COMPILE_ONLY) !== 0,
        keepRealm: (flags & KEEP_REALM) !== 0,
      });
      offset += inputBytes;
    }
    return requests;
  }

  /** Claims the batch's request `index` before running it; false when the host took it back (and all after it). */
  claim(index: number): boolean {
    if (Atomics.compareExchange(this.entries, index * ENTRY_SLOTS + CLAIM, PENDING, CLAIMED) !== PENDING) return false;
    this.runStart[0] = Date.now();
    return true;
  }

  /** Answers the batch's request `index`, after the ones before it; a reply that does not fit goes to `post`. */
  reply(index: number, outcome: SandboxOutcome, post: (index: number, outcome: SandboxOutcome) => void): void {
    const entry = index * ENTRY_SLOTS;
    const bytes = this.write(JSON.stringify(outcome), this.#replyOffset);
    if (bytes < 0) {
      this.entries[entry + REPLY_BYTES] = AS_MESSAGE;
      post(index, outcome);
    } else {
      this.entries[entry + REPLY_BYTES] = bytes;
      this.#replyOffset += bytes;
    }
    Atomics.store(this.header, DONE, index + 1);
  }

  /** Tells the host the batch is answered: the requests answered so far; those after them will not run. */
  finish(reusable: boolean): void {
    const header = this.header;
    header[REPLY_FLAGS] = reusable ? REUSABLE : 0;
    Atomics.store(header, REPLY, IN_BLOCK);
    Atomics.notify(header, REPLY);
  }
}
