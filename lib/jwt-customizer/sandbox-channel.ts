/**
 * How the host and a sandbox worker hand runs over (see `sandbox-pool.ts`): a block of shared memory per worker
 * holding one request, then its reply. The host writes the request and the worker, waiting for it in
 * `Atomics.wait` (it has nothing else to do), reads it; the worker writes the reply over it and the host, waiting
 * for that in `Atomics.waitAsync`, reads it on its event loop. Neither side thus runs a message event or a
 * structured clone for a run, and a request for the script the worker already has leaves the script out. A
 * request or a reply too large for the block travels as a message, announced through the block.
 */
import type { RunRequest, SandboxOutcome } from './sandbox.ts';

/** Int32 slots of the header. */
const STATE = 0;
const SCRIPT_BYTES = 1;
const INPUT_BYTES = 2;
const FLAGS = 3;
/** Slots 4 and 5 hold the request's deadline (a float64 at byte 16). */
const DEADLINE_OFFSET = 16;
const REPLY = 6;
const REPLY_BYTES = 7;
const REPLY_FLAGS = 8;
/** Byte offset of the text after the header. */
const HEADER_BYTES = 40;
/** Text room of a block: a token's script and input fit many times over; larger requests go as messages. */
const TEXT_BYTES = 64 * 1024;

/** Values of the STATE and REPLY slots (REPLY is never AS_MESSAGE: see `WorkerSide.reply`). */
const EMPTY = 0;
const IN_BLOCK = 1;
const AS_MESSAGE = 2;
/** In REPLY: the host gave up on the worker (see `HostSide.cancel`). */
const CANCELLED = 3;
/** In SCRIPT_BYTES: the request runs the same script as the previous one. */
const SAME_SCRIPT = -1;

/** Bits of FLAGS. */
const COMPILE_ONLY = 1;
const KEEP_REALM = 2;
/** Bits of REPLY_FLAGS. */
const REUSABLE = 1;

const encoder = new TextEncoder();

/** A worker's answer to a run; `reusable: false` asks the host to replace the worker (its memory is spent or unknown). */
export interface Reply {
  outcome: SandboxOutcome;
  reusable: boolean;
}

class Block {
  readonly buffer: SharedArrayBuffer;
  protected readonly header: Int32Array;
  protected readonly deadline: Float64Array;
  protected readonly bytes: Uint8Array;
  protected readonly text: Buffer;

  constructor(buffer = new SharedArrayBuffer(HEADER_BYTES + TEXT_BYTES)) {
    this.buffer = buffer;
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.deadline = new Float64Array(buffer, DEADLINE_OFFSET, 1);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
    this.text = Buffer.from(buffer, HEADER_BYTES);
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
  /** The script of the last request, which the worker keeps. */
  #script: string | undefined;

  /**
   * Hands a request to the worker and calls `onReply` on the event loop once the REPLY slot holds an answer: the
   * reply, or nothing when the host cancelled. A reply too large for the block comes as a message instead, and
   * `onReply` then sees the answer to a later request, or the cancellation, so it must check what the reply is for.
   * `post` sends a request that does not fit the block, before it is announced.
   */
  send(request: RunRequest, post: (request: RunRequest) => void, onReply: (reply: Reply | undefined) => void): void {
    const header = this.header;
    const sameScript = request.script === this.#script;
    const scriptBytes = sameScript ? 0 : this.write(request.script, 0);
    const inputBytes = scriptBytes < 0 ? -1 : this.write(request.inputJson, scriptBytes);
    this.#script = request.script;
    // The waiter is in place before the worker can answer, so the answer always arrives on a later turn.
    Atomics.store(header, REPLY, EMPTY);
    this.#awaitReply(onReply);
    if (inputBytes < 0) {
      post(request);
      Atomics.store(header, STATE, AS_MESSAGE);
    } else {
      header[SCRIPT_BYTES] = sameScript ? SAME_SCRIPT : scriptBytes;
      header[INPUT_BYTES] = inputBytes;
      header[FLAGS] = (request.compileOnly ? COMPILE_ONLY : 0) | (request.keepRealm ? KEEP_REALM : 0);
      this.deadline[0] = request.deadline;
      Atomics.store(header, STATE, IN_BLOCK);
    }
    Atomics.notify(header, STATE);
  }

  /** Releases the host's wait for a reply from a worker it gave up on; the reply callback then receives nothing. */
  cancel(): void {
    Atomics.store(this.header, REPLY, CANCELLED);
    Atomics.notify(this.header, REPLY);
  }

  /** Waits for the REPLY slot to leave EMPTY (a wake-up that finds it still EMPTY waits again). */
  #awaitReply(onReply: (reply: Reply | undefined) => void): void {
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

  #reply(): Reply | undefined {
    const header = this.header;
    if (Atomics.load(header, REPLY) !== IN_BLOCK) return undefined;
    return {
      outcome: JSON.parse(this.read(0, header[REPLY_BYTES] ?? 0)) as SandboxOutcome,
      reusable: ((header[REPLY_FLAGS] ?? 0) & REUSABLE) !== 0,
    };
  }
}

/** The worker's side of its block. */
export class WorkerSide extends Block {
  #script = '';

  /**
   * Blocks until the host hands over a request; `fromMessage` fetches one that came as a message. Only the STATE
   * slot says a request is there: a wake-up that finds it empty waits again rather than read what the block holds
   * then (the last reply, over the last request).
   */
  receive(fromMessage: () => RunRequest): RunRequest {
    const header = this.header;
    let state = Atomics.exchange(header, STATE, EMPTY);
    while (state === EMPTY) {
      Atomics.wait(header, STATE, EMPTY);
      state = Atomics.exchange(header, STATE, EMPTY);
    }
    if (state === AS_MESSAGE) {
      const request = fromMessage();
      this.#script = request.script;
      return request;
    }
    const scriptBytes = header[SCRIPT_BYTES] ?? 0;
    if (scriptBytes !== SAME_SCRIPT) this.#script = this.read(0, scriptBytes);
    const flags = header[FLAGS] ?? 0;
    return {
      script: this.#script,
      inputJson: this.read(Math.max(scriptBytes, 0), header[INPUT_BYTES] ?? 0),
      deadline: this.deadline[0] ?? 0,
      compileOnly: (flags & COMPILE_ONLY) !== 0,
      keepRealm: (flags & KEEP_REALM) !== 0,
    };
  }

  /**
   * Answers the request received last, over it. A reply that does not fit the block goes to `post` alone and leaves
   * the slot untouched: the host may have moved on to the next request by the time the message is posted.
   */
  reply(reply: Reply, post: (reply: Reply) => void): void {
    const header = this.header;
    const bytes = this.write(JSON.stringify(reply.outcome), 0);
    if (bytes < 0) {
      post(reply);
      return;
    }
    header[REPLY_BYTES] = bytes;
    header[REPLY_FLAGS] = reply.reusable ? REUSABLE : 0;
    Atomics.store(header, REPLY, IN_BLOCK);
    Atomics.notify(header, REPLY);
  }
}
