// What the tunnel reads from the desktop server's instructions (tunnelSession.ts): whether one
// shows the desktop behind the server answering (the link watch and /readyz hear it), the status
// and text of its `error` (reported again in the close reason), and the desktop's size from its
// `size` for the default layer (desktopConnections.ts keeps it).
import { GuacStatus, type GuacInstruction } from '@overlay-companion/guac';
import type { DesktopSize } from '../desktops/desktopSize.js';

/**
 * Not from the desktop: the server's own keep-alives (`nop`), its words about the connection
 * (`error`, `disconnect`), and what guacd 1.6 greets each new user with at once — a `sync`, and a
 * `cursor` and `mouse` — all sent with the desktop silent (tunnel.guacdStallReopen.test.ts).
 */
const NOT_FROM_THE_DESKTOP = new Set(['nop', 'error', 'disconnect', 'sync', 'cursor', 'mouse']);

/**
 * Whether an instruction shows the desktop behind the server answering. A frame the desktop drew
 * always has drawing instructions before its `sync`.
 */
export const fromTheDesktop = (opcode: string): boolean => !NOT_FROM_THE_DESKTOP.has(opcode);

/** An `error` instruction's status (a server error when it names none) and message. */
export function upstreamErrorOf(instruction: GuacInstruction): { status: number; message: string } {
  const [message = '', statusText = ''] = instruction.args;
  const status = /^\d{1,4}$/.test(statusText) ? Number(statusText) : GuacStatus.SERVER_ERROR;
  return { status, message };
}

/** The desktop's size from a `size` for the default layer (0); undefined for any other. */
export function desktopSizeOf(instruction: GuacInstruction): DesktopSize | undefined {
  if (instruction.opcode !== 'size' || instruction.args[0] !== '0') return undefined;
  const width = Number(instruction.args[1]);
  const height = Number(instruction.args[2]);
  return Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0
    ? { width, height }
    : undefined;
}
