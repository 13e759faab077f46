// A Guacamole instruction stream over any Node Duplex (a net.Socket to guacd or the gateway).
//
// Owns the rule that one bad peer only ever hurts its own connection: every parse fault, socket
// error and timeout becomes an 'error' event (or a rejected nextInstruction()) followed by a
// close, never an exception thrown out of an event handler. After a fault nothing more is read.
// Instructions nobody is listening for yet (e.g. the first frames that arrive in the same TCP
// chunk as `ready`, before the caller has attached its listener) are queued, with the socket
// paused, and delivered in order to the next nextInstruction() or 'instruction' listener.

import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { encodeInstruction } from './encoder.js';
import { GuacParser, type GuacInstruction, type ParserOptions } from './parser.js';
import { GuacProtocolError, GuacStatus } from './status.js';

export interface GuacConnectionEvents {
  instruction: [GuacInstruction];
  error: [Error];
  close: [];
}

interface Waiter {
  expectedOpcode: string | undefined;
  resolve: (instruction: GuacInstruction) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

// How long close() lets queued writes (such as a final `error` instruction) drain before the
// socket is destroyed regardless.
const CLOSE_GRACE_MS = 2000;

/** The `error` instruction's text and status, as a GuacProtocolError. */
export function errorFromInstruction(instruction: GuacInstruction): GuacProtocolError {
  const [message = '', statusText = ''] = instruction.args;
  const status = /^\d+$/.test(statusText) ? Number(statusText) : GuacStatus.SERVER_ERROR;
  return new GuacProtocolError(
    message === '' ? `The peer reported error ${status}.` : message,
    status,
  );
}

// A listener's exception must not escape a socket event handler (that would be an uncaught
// exception for the whole process), but it must not vanish either.
function reportListenerBug(event: string, error: unknown): void {
  process.emitWarning(
    `A GuacConnection '${event}' listener threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    'GuacConnectionListenerWarning',
  );
}

export class GuacConnection extends EventEmitter<GuacConnectionEvents> {
  readonly socket: Duplex;
  private readonly parser: GuacParser;
  private readonly queue: GuacInstruction[] = [];
  private readonly waiters: Waiter[] = [];
  private closing = false;
  private closed = false;
  private pausedForQueue = false;
  private drainScheduled = false;
  private closeTimer: NodeJS.Timeout | undefined;
  // Why the connection ended, for nextInstruction() calls made afterwards.
  private endReason: Error | undefined;

  constructor(socket: Duplex, limits?: Partial<ParserOptions>) {
    super();
    this.socket = socket;
    this.parser = new GuacParser(limits);
    socket.on('data', (chunk: Buffer | string) => this.onData(chunk));
    socket.on('error', (error: Error) => this.fault(error));
    socket.on('end', () => this.onEnd());
    socket.on('close', () => this.onClose());
    // 'newListener' is EventEmitter's own event, outside the typed map.
    (this as EventEmitter).on('newListener', (event: string | symbol) => {
      if (event === 'instruction' && this.queue.length > 0) this.scheduleDrain();
    });
  }

  /** True once close() was called or the socket closed; send() then returns false. */
  get isClosed(): boolean {
    return this.closing || this.closed;
  }

  /** Encodes and writes one instruction; returns socket.write's result (false: wait for 'drain'). */
  send(opcode: string, ...args: (string | number)[]): boolean {
    return this.sendRaw(encodeInstruction(opcode, ...args));
  }

  /** Writes already-encoded whole instructions (e.g. a batch joined by the caller). */
  sendRaw(encoded: string): boolean {
    if (this.closing || this.closed || !this.socket.writable) return false;
    return this.socket.write(encoded);
  }

  /**
   * The next instruction not taken by an earlier call (queued ones first). With
   * `expectedOpcode`, any other opcode rejects: an `error` instruction with its own message and
   * status, anything else with CLIENT_BAD_REQUEST. A timeout rejects with CLIENT_TIMEOUT and
   * leaves the connection open; a close or a parse fault rejects every pending call.
   */
  nextInstruction(expectedOpcode?: string, timeoutMs?: number): Promise<GuacInstruction> {
    return new Promise<GuacInstruction>((resolve, reject) => {
      const waiter: Waiter = { expectedOpcode, resolve, reject, timer: undefined };
      const queued = this.queue.shift();
      if (queued) {
        this.settle(waiter, queued);
        this.afterDequeue();
        return;
      }
      if (this.closing || this.closed) {
        reject(
          this.endReason ??
            new GuacProtocolError(
              'The Guacamole connection is closed.',
              GuacStatus.RESOURCE_CLOSED,
            ),
        );
        return;
      }
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(
            new GuacProtocolError(
              `No ${expectedOpcode === undefined ? '' : `'${expectedOpcode}' `}instruction arrived within ${timeoutMs} ms.`,
              GuacStatus.CLIENT_TIMEOUT,
            ),
          );
        }, timeoutMs);
      }
      this.waiters.push(waiter);
    });
  }

  /**
   * Ends the connection: stops reading, lets pending writes drain (so an `error` instruction
   * sent just before is delivered), then the socket closes; it is destroyed if it has not
   * closed after a short grace period.
   */
  close(): void {
    if (this.closing || this.closed) return;
    this.closing = true;
    this.rejectWaiters(
      new GuacProtocolError('The Guacamole connection was closed.', GuacStatus.RESOURCE_CLOSED),
    );
    this.socket.end();
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    this.closeTimer.unref();
  }

  private onData(chunk: Buffer | string): void {
    if (this.closing || this.closed) return;
    const parsed: GuacInstruction[] = [];
    let failure: unknown;
    try {
      this.parser.pushInto(chunk, parsed);
    } catch (error) {
      failure = error;
    }
    // Instructions completed before a fault are well-formed and are delivered first.
    for (const instruction of parsed) this.dispatch(instruction);
    if (failure !== undefined) {
      this.fault(
        failure instanceof Error ? failure : new GuacProtocolError('The Guacamole parser failed.'),
      );
    }
  }

  private dispatch(instruction: GuacInstruction): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.settle(waiter, instruction);
    } else if (this.queue.length === 0 && this.listenerCount('instruction') > 0) {
      this.deliver(instruction);
    } else {
      this.queue.push(instruction);
      if (this.listenerCount('instruction') > 0) this.scheduleDrain();
      // Nobody is consuming: stop reading so the queue cannot grow without bound.
      if (!this.pausedForQueue) {
        this.pausedForQueue = true;
        this.socket.pause();
      }
    }
  }

  private deliver(instruction: GuacInstruction): void {
    try {
      this.emit('instruction', instruction);
    } catch (error) {
      // A throwing listener is a bug in the caller; it must not take the process down.
      this.fault(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private onEnd(): void {
    if (!this.closing && !this.closed && this.parser.buffered > 0) {
      this.fault(
        new GuacProtocolError(
          'The peer ended the connection in the middle of an instruction.',
          GuacStatus.CLIENT_BAD_REQUEST,
        ),
      );
      return;
    }
    this.close();
  }

  private settle(waiter: Waiter, instruction: GuacInstruction): void {
    if (waiter.timer) clearTimeout(waiter.timer);
    const expected = waiter.expectedOpcode;
    if (expected === undefined || instruction.opcode === expected) {
      waiter.resolve(instruction);
    } else if (instruction.opcode === 'error') {
      waiter.reject(errorFromInstruction(instruction));
    } else {
      waiter.reject(
        new GuacProtocolError(
          `Expected a '${expected}' instruction but received '${instruction.opcode}'.`,
          GuacStatus.CLIENT_BAD_REQUEST,
        ),
      );
    }
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    // Deferred because 'newListener' fires before the listener is actually added.
    queueMicrotask(() => {
      this.drainScheduled = false;
      while (this.queue.length > 0 && this.listenerCount('instruction') > 0) {
        const next = this.queue.shift() as GuacInstruction;
        this.deliver(next);
      }
      this.afterDequeue();
    });
  }

  private afterDequeue(): void {
    if (this.queue.length === 0 && this.pausedForQueue) {
      this.pausedForQueue = false;
      if (!this.closing && !this.closed) this.socket.resume();
    }
  }

  private fault(error: Error): void {
    if (this.closed) return;
    this.endReason ??= error;
    this.rejectWaiters(error);
    // EventEmitter throws on an unheard 'error'; a protocol fault must never do that.
    if (this.listenerCount('error') > 0) {
      try {
        this.emit('error', error);
      } catch (listenerError) {
        // A throwing 'error' listener is the caller's bug: report it, close all the same.
        reportListenerBug('error', listenerError);
      }
    }
    this.close();
  }

  private rejectWaiters(error: Error): void {
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.rejectWaiters(
      this.endReason ??
        new GuacProtocolError(
          'The Guacamole connection was closed by the peer.',
          GuacStatus.RESOURCE_CLOSED,
        ),
    );
    try {
      this.emit('close');
    } catch (listenerError) {
      reportListenerBug('close', listenerError);
    }
  }
}
