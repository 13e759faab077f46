// One browser-side TCP connection as a Guacamole instruction stream: parses what arrives
// (strictly, with the shared codec), hands instructions out one at a time during the
// handshake and to a handler afterwards, and writes each batch of outgoing instructions in a
// single socket write so a frame reaches the browser whole. Tracks socket backpressure so the
// frame pipeline can wait for `drain` instead of buffering without bound.
import type { Socket } from 'node:net';
import {
  encodeInstruction,
  GuacParser,
  GuacProtocolError,
  GuacStatus,
  type GuacInstruction,
} from '@overlay-companion/guac';
import type { OutInstruction } from '../encode/instructions.js';

type Waiter = {
  resolve: (instruction: GuacInstruction) => void;
  reject: (error: Error) => void;
};

/** Client input limits: generous for clipboard blobs, far below what could hurt the server. */
const PARSER_LIMITS = {
  maxElementCodePoints: 1024 * 1024,
  maxInstructionCodePoints: 2 * 1024 * 1024,
};

export class GuacSocket {
  private readonly parser = new GuacParser(PARSER_LIMITS);
  private readonly queue: GuacInstruction[] = [];
  private waiter: Waiter | undefined;
  private handler: ((instruction: GuacInstruction) => void) | undefined;
  private failure: Error | undefined;
  private closed = false;
  private readonly closeListeners: ((error: Error | undefined) => void)[] = [];
  private readonly drainListeners: (() => void)[] = [];

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('drain', () => {
      for (const listener of this.drainListeners) listener();
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(undefined));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the socket holds more unsent data than its high-water mark. */
  get isBackpressured(): boolean {
    return this.socket.writableNeedDrain;
  }

  onDrain(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /** Called once when the connection ends; `error` is set for malformed input or socket errors. */
  onClose(listener: (error: Error | undefined) => void): void {
    // A connection that already ended still reports it, so no owner waits for it forever.
    if (this.closed) queueMicrotask(() => listener(this.failure));
    else this.closeListeners.push(listener);
  }

  /** Next instruction during the handshake; rejects on timeout, malformed input or close. */
  next(timeoutMs: number, expecting: string): Promise<GuacInstruction> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.failure !== undefined || this.closed) {
      return Promise.reject(this.failure ?? new Error('connection closed'));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(
          new GuacProtocolError(
            `Handshake timed out after ${String(timeoutMs)} ms waiting for ${expecting}; the client must send it promptly after connecting.`,
            GuacStatus.CLIENT_TIMEOUT,
          ),
        );
      }, timeoutMs);
      this.waiter = {
        resolve: (instruction) => {
          clearTimeout(timer);
          resolve(instruction);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Switches from handshake reads to delivering every instruction to `handler`. */
  setHandler(handler: (instruction: GuacInstruction) => void): void {
    this.handler = handler;
    while (this.queue.length > 0 && this.handler === handler && !this.closed) {
      const instruction = this.queue.shift();
      if (instruction !== undefined) handler(instruction);
    }
  }

  /** Writes the batch in one write; returns false when the socket asks us to wait for drain. */
  send(instructions: readonly OutInstruction[]): boolean {
    if (this.closed || instructions.length === 0) return !this.closed;
    let text = '';
    for (const [opcode, ...args] of instructions) text += encodeInstruction(opcode, ...args);
    return this.socket.write(text);
  }

  /** Sends `error` (and guacd's closing `disconnect`), then ends the connection. */
  sendErrorAndClose(message: string, status: number): void {
    this.send([['error', message, status], ['disconnect']]);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.socket.end();
    // A peer that never reads would keep the socket half-open; do not wait for it forever.
    setTimeout(() => this.socket.destroy(), 2000).unref();
    this.fail(undefined);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    const out: GuacInstruction[] = [];
    try {
      this.parser.pushInto(chunk, out);
    } catch (error) {
      // Instructions completed before the fault still count; then report the fault.
      for (const instruction of out) this.deliver(instruction);
      const status =
        error instanceof GuacProtocolError ? error.status : GuacStatus.CLIENT_BAD_REQUEST;
      const message = error instanceof Error ? error.message : String(error);
      this.failure ??= error instanceof Error ? error : new Error(message);
      this.sendErrorAndClose(`Malformed Guacamole instruction from the client: ${message}`, status);
      return;
    }
    for (const instruction of out) this.deliver(instruction);
  }

  private deliver(instruction: GuacInstruction): void {
    if (this.closed) return;
    if (this.waiter !== undefined) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve(instruction);
    } else if (this.handler !== undefined) {
      this.handler(instruction);
    } else {
      this.queue.push(instruction);
    }
  }

  private fail(error: Error | undefined): void {
    if (error !== undefined && this.failure === undefined) this.failure = error;
    if (this.closed) return;
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(
      this.failure ?? new Error('The client closed the connection during the handshake.'),
    );
    for (const listener of this.closeListeners) listener(this.failure);
  }
}
