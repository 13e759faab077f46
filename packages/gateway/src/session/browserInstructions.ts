// What a browser sends a gateway user, told apart and checked: `sync` (the frame it
// acknowledges), `disconnect`, a delivery request (packages/guac's delivery.ts), its attention
// level and `x-oc-passive` (packages/guac's attention.ts); anything else is desktop input, for
// input.ts. A malformed one throws InputError, naming what it should have been.
import {
  ATTENTION_LEVELS,
  ATTENTION_OPCODE,
  DELIVERY_OPCODE,
  PASSIVE_OPCODE,
  attentionLevel,
  deliveryRequestId,
  isPassiveRequest,
  type AttentionLevel,
  type GuacInstruction,
} from '@overlay-companion/guac';
import { InputError } from './input.js';

export interface BrowserInstructionHandlers {
  sync(timestamp: number): void;
  disconnect(): void;
  /** Answer request `id` once the input sent before it has reached the desktop. */
  delivery(id: string): void;
  attention(level: AttentionLevel): void;
  passive(): void;
  /** Anything else: desktop input (or an unknown opcode, for input.ts to judge). */
  input(instruction: GuacInstruction): void;
}

export function dispatchBrowserInstruction(
  instruction: GuacInstruction,
  on: BrowserInstructionHandlers,
): void {
  switch (instruction.opcode) {
    case 'sync':
      on.sync(syncTimestamp(instruction.args));
      return;
    case 'disconnect':
      on.disconnect();
      return;
    case DELIVERY_OPCODE: {
      const id = deliveryRequestId(instruction.args);
      if (id === undefined) {
        throw new InputError(
          `"${DELIVERY_OPCODE}" takes one argument, a request number of 1–9 digits.`,
        );
      }
      on.delivery(id);
      return;
    }
    case ATTENTION_OPCODE: {
      const level = attentionLevel(instruction.args);
      if (level === undefined) {
        throw new InputError(
          `"${ATTENTION_OPCODE}" takes one argument, one of ${ATTENTION_LEVELS.join(', ')}.`,
        );
      }
      on.attention(level);
      return;
    }
    case PASSIVE_OPCODE:
      if (!isPassiveRequest(instruction.args)) {
        throw new InputError(`"${PASSIVE_OPCODE}" takes no arguments.`);
      }
      on.passive();
      return;
    default:
      on.input(instruction);
  }
}

function syncTimestamp(args: readonly string[]): number {
  const value = args[0];
  if (value === undefined || !/^\d+$/.test(value)) {
    throw new InputError(
      `"sync" needs the timestamp of the frame it acknowledges, got ${JSON.stringify(value ?? null)}.`,
    );
  }
  return Number(value);
}
