// Resizing a VNC desktop to a size the bridge decided, through a short connection of its own.
//
// The people's VNC connections are opened with `disable-display-resize`, so no browser (and no
// guacd default) can resize the shared desktop: guacd 1.6 would otherwise resize it to the
// owner's handshake size when the connection starts, and later to any `size` the owner sends
// (only the owner's: a joined user's `size` is ignored, and once the owner has left nobody can
// resize). A resize is therefore its own connection, owner of itself, with resizing allowed: it
// asks for the size in the handshake (guacd applies that when the VNC screen is up) and with a
// `size` instruction once the desktop has shown its size (our gateway applies that, as RFB
// SetDesktopSize; it ignores handshake sizes), waits until the desktop reports the new size,
// and leaves.
import type { Logger } from 'pino';
import type { GuacInstruction } from '@overlay-companion/guac';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import { describeSize, sameSize, type DesktopSize } from '../desktops/desktopSize.js';
import { openUpstream } from './upstream.js';

/** How long a VNC server gets to apply a resize before the bridge gives up on it. */
export const RESIZE_TIMEOUT_MS = 10_000;
/** How often a resize is said again until the desktop reports the size. */
const RESIZE_RESEND_MS = 1_000;

export type ResizeOutcome =
  { applied: true; size: DesktopSize } | { applied: false; reason: string; size?: DesktopSize };

/**
 * A VNC resize's outcome with `before`, the first size the desktop showed on the resize's own
 * connection: the size it had, when that differs from the size asked (guacd may apply the
 * handshake's size before it shows any).
 */
export type VncResizeOutcome = ResizeOutcome & { before?: DesktopSize };

export interface VncResizeTarget {
  guacd: GuacdAddress;
  connection: ConnectionConfig;
  handshakeTimeoutMs: number;
}

/** Connection parameters for the people's VNC connections: resizing is the bridge's alone. */
export function sharedVncParams(connection: ConnectionConfig): Record<string, string> {
  return { ...connection.params, 'disable-display-resize': 'true' };
}

export async function resizeVncDesktop(
  target: VncResizeTarget,
  size: DesktopSize,
  logger: Logger,
): Promise<VncResizeOutcome> {
  let upstream;
  try {
    upstream = await openUpstream(target.guacd, {
      select: 'vnc',
      params: { ...target.connection.params, 'disable-display-resize': 'false' },
      size,
      timeoutMs: target.handshakeTimeoutMs,
    });
  } catch (err) {
    const reason = `The desktop server could not be reached to resize the desktop: ${err instanceof Error ? err.message : String(err)}`;
    logger.warn({ why: reason }, 'desktop resize failed');
    return { applied: false, reason };
  }
  const { conn } = upstream;
  return new Promise<VncResizeOutcome>((resolve) => {
    let asked = false;
    let last: DesktopSize | undefined;
    /** The first size the desktop shows on this connection: its size before the resize. */
    let before: DesktopSize | undefined;
    let resend: NodeJS.Timeout | undefined;
    const finish = (outcome: VncResizeOutcome) => {
      clearTimeout(timer);
      clearInterval(resend);
      conn.off('instruction', onInstruction);
      conn.off('close', onClose);
      if (!conn.isClosed) conn.send('disconnect');
      conn.close();
      if (before !== undefined && !sameSize(before, size)) outcome.before = before;
      if (outcome.applied) logger.info({ size: describeSize(outcome.size) }, 'desktop resized');
      else logger.warn({ why: outcome.reason }, 'desktop resize failed');
      resolve(outcome);
    };
    const onInstruction = (instruction: GuacInstruction) => {
      // Frames must be acknowledged, or the server holds the next one (and its size) back.
      if (instruction.opcode === 'sync') conn.send('sync', instruction.args[0] ?? '0');
      if (instruction.opcode === 'error') {
        finish({
          applied: false,
          reason: `The desktop server refused: ${instruction.args[0] ?? ''}`,
        });
        return;
      }
      if (instruction.opcode !== 'size' || instruction.args[0] !== '0') return;
      last = { width: Number(instruction.args[1]), height: Number(instruction.args[2]) };
      before ??= last;
      if (sameSize(last, size)) {
        finish({ applied: true, size: last });
      } else if (!asked) {
        asked = true;
        conn.send('size', size.width, size.height);
        // guacd can drop a size asked while its VNC session is still settling (seen under load,
        // as with RDP's Display Update): say it again until the desktop reports it.
        resend = setInterval(() => {
          if (!conn.isClosed) conn.send('size', size.width, size.height);
        }, RESIZE_RESEND_MS);
      }
    };
    const onClose = () =>
      finish({ applied: false, reason: 'The desktop server closed the resize connection.' });
    const timer = setTimeout(
      () =>
        finish({
          applied: false,
          reason: `The VNC server did not take the size ${describeSize(size)} within ${RESIZE_TIMEOUT_MS / 1000} s (does it support SetDesktopSize?).`,
          ...(last === undefined ? {} : { size: last }),
        }),
      RESIZE_TIMEOUT_MS,
    );
    conn.on('instruction', onInstruction);
    conn.on('close', onClose);
  });
}
