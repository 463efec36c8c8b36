/**
 * How the host hands a run to a sandbox worker (see `sandbox-pool.ts`): a block of shared memory per worker holding
 * one request, which the host writes and the worker, waiting for it in `Atomics.wait` (it has nothing else to do),
 * reads. The worker thus never runs an event loop turn, a message event or a structured clone to receive a run,
 * and a request for the script it already has leaves the script out. A request too large for the block travels as
 * a message, announced through the block. Replies go back as messages.
 */
import type { RunRequest } from './sandbox.ts';

/** Int32 slots of the header. */
const STATE = 0;
const SCRIPT_BYTES = 1;
const INPUT_BYTES = 2;
const FLAGS = 3;
/** Byte offset of the request's deadline (a float64), and of the text after the header. */
const DEADLINE_OFFSET = 16;
const HEADER_BYTES = 24;
/** Text room of a block: a token's script and input fit many times over; larger requests go as messages. */
const TEXT_BYTES = 64 * 1024;

/** Values of the STATE slot. */
const EMPTY = 0;
const IN_BLOCK = 1;
const AS_MESSAGE = 2;
/** In SCRIPT_BYTES: the request runs the same script as the previous one. */
const SAME_SCRIPT = -1;

const COMPILE_ONLY = 1;
const KEEP_REALM = 2;

const encoder = new TextEncoder();

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
}

/** The host's side of a worker's block. */
export class RequestWriter extends Block {
  /** The script of the last request, which the worker keeps. */
  #script: string | undefined;

  /** Hands a request to the worker; `post` sends one that does not fit the block, before it is announced. */
  send(request: RunRequest, post: (request: RunRequest) => void): void {
    const header = this.header;
    const sameScript = request.script === this.#script;
    const scriptBytes = sameScript ? 0 : this.#write(request.script, 0);
    const inputBytes = scriptBytes < 0 ? -1 : this.#write(request.inputJson, scriptBytes);
    this.#script = request.script;
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

  /** Writes `text` at `offset` of the text area; the bytes written, or -1 when it does not fit. */
  #write(text: string, offset: number): number {
    const { read, written } = encoder.encodeInto(text, this.bytes.subarray(offset));
    return read === text.length ? written : -1;
  }
}

/** The worker's side of its block. */
export class RequestReader extends Block {
  #script = '';

  /** Blocks until the host hands over a request; `fromMessage` fetches one that came as a message. */
  receive(fromMessage: () => RunRequest): RunRequest {
    const header = this.header;
    Atomics.wait(header, STATE, EMPTY);
    if (Atomics.exchange(header, STATE, EMPTY) === AS_MESSAGE) {
      const request = fromMessage();
      this.#script = request.script;
      return request;
    }
    const scriptBytes = header[SCRIPT_BYTES] ?? 0;
    if (scriptBytes !== SAME_SCRIPT) this.#script = this.#read(0, scriptBytes);
    const flags = header[FLAGS] ?? 0;
    return {
      script: this.#script,
      inputJson: this.#read(Math.max(scriptBytes, 0), header[INPUT_BYTES] ?? 0),
      deadline: this.deadline[0] ?? 0,
      compileOnly: (flags & COMPILE_ONLY) !== 0,
      keepRealm: (flags & KEEP_REALM) !== 0,
    };
  }

  #read(offset: number, length: number): string {
    return this.text.toString('utf8', offset, offset + length);
  }
}
