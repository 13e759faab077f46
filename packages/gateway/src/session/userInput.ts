// What one browser sends its gateway user (guacUser.ts), handled: every instruction keeps the
// connection alive (keepAlive.ts) and is told apart (browserInstructions.ts); `sync`, `disconnect`,
// attention and `x-oc-passive` go back to the user; a delivery request is answered once the input
// sent before it has reached the desktop server; the rest is desktop input for input.ts, except a
// thumbnail's pointer input, which goes nowhere (its display is thumbnail-sized, not the
// desktop's). A malformed instruction ends this browser's connection with 768 and a bug of ours
// with 500 — never the whole gateway.
import type { Logger } from 'pino';
import {
  DELIVERY_OPCODE,
  GuacStatus,
  type AttentionLevel,
  type GuacInstruction,
} from '@overlay-companion/guac';
import type { OutInstruction } from '../encode/instructions.js';
import { dispatchBrowserInstruction } from './browserInstructions.js';
import { InputError, InputHandler, type DesktopInput, type InputPolicy } from './input.js';
import { KeepAlive, type KeepAliveOptions } from './keepAlive.js';

/** Input that carries desktop coordinates (dropped from a thumbnail, whose display is smaller). */
const POINTER_OPCODES = new Set(['mouse', 'touch']);

/** What the browser's instructions reach in its user. */
export interface UserInputHooks {
  send(out: OutInstruction[]): void;
  /** Ends the browser's connection with an `error` instruction. */
  abort(message: string, status: number): void;
  /** The user is gone: nothing more is answered. */
  gone(): boolean;
  /** The browser's attention now (a thumbnail's pointer input is dropped). */
  attention(): AttentionLevel;
  sync(timestamp: number): void;
  disconnect(): void;
  setAttention(level: AttentionLevel): void;
  becomePassive(): void;
}

export class UserInput {
  private readonly input: InputHandler;
  private readonly keepAlive: KeepAlive;

  constructor(
    /** The session: its desktop for input, its size for pointer bounds. */
    private readonly source: {
      readonly desktop: DesktopInput | undefined;
      readonly width: number;
      readonly height: number;
    },
    options: InputPolicy & KeepAliveOptions,
    private readonly hooks: UserInputHooks,
    private readonly logger: Logger,
  ) {
    this.input = new InputHandler(
      () => source.desktop,
      options,
      () => source,
    );
    this.keepAlive = new KeepAlive(options, {
      nop: () => hooks.send([['nop']]),
      idle: () =>
        hooks.abort(
          'The client sent nothing for too long (it must send nop or sync at least every few seconds).',
          GuacStatus.CLIENT_TIMEOUT,
        ),
    });
  }

  /** One instruction from the browser. */
  receive(instruction: GuacInstruction): void {
    if (this.hooks.gone()) return;
    this.keepAlive.received();
    try {
      dispatchBrowserInstruction(instruction, {
        sync: (timestamp) => this.hooks.sync(timestamp),
        disconnect: () => this.hooks.disconnect(),
        delivery: (id) => this.confirmDelivery(id),
        attention: (level) => this.hooks.setAttention(level),
        passive: () => this.hooks.becomePassive(),
        input: (input) => this.onInput(input),
      });
    } catch (error) {
      if (error instanceof InputError) {
        this.hooks.abort(
          `Malformed "${instruction.opcode}" instruction: ${error.message}`,
          GuacStatus.CLIENT_BAD_REQUEST,
        );
        return;
      }
      // A bug of ours must end this browser's connection, never the whole gateway.
      this.logger.error({ err: error, opcode: instruction.opcode }, 'input handling failed');
      this.hooks.abort(
        'The gateway failed to handle input; reconnect, and report it if it repeats.',
        GuacStatus.SERVER_ERROR,
      );
    }
  }

  /** The user left: no more keep-alives. */
  stop(): void {
    this.keepAlive.stop();
  }

  /**
   * Answers the bridge's delivery request `id` (packages/guac's delivery.ts) once the input this
   * browser sent before it has reached the desktop server. Answers leave in request order: the
   * desktop's confirmations do.
   */
  private confirmDelivery(id: string): void {
    const desktop = this.source.desktop;
    const answer = (outcome: string): void => {
      if (!this.hooks.gone()) this.hooks.send([[DELIVERY_OPCODE, id, outcome]]);
    };
    if (desktop === undefined) {
      answer('lost');
      return;
    }
    desktop.confirmDelivery().then(answer, () => answer('lost'));
  }

  private onInput(instruction: GuacInstruction): void {
    // A thumbnail's pointer is in thumbnail pixels, not the desktop's: it goes nowhere.
    if (this.hooks.attention() === 'thumbnail' && POINTER_OPCODES.has(instruction.opcode)) return;
    const reply = this.input.handle(instruction);
    if (reply.ack !== undefined) {
      this.hooks.send([['ack', reply.ack.stream, reply.ack.message, reply.ack.status]]);
    }
  }
}
