// What a tool call is told while the viewer does not show the remote desktop (still opening,
// lost and reconnecting, given up): viewer_unavailable, and when the viewer reconnects by itself,
// retry_after_ms up to the next attempt plus its handshake, so the AI waits instead of retrying a
// screenshot that fails the same way. Pure: the connection state and the clock come in.
import { ProtocolError } from '@overlay-companion/protocol';
import type { ConnectionData } from '../store/connection.js';

/** From the start of a reconnect attempt to its first frame (the handshake and the first update). */
export const RECONNECT_ALLOWANCE_MS = 1_000;
/** A desktop still opening after the call's wait for its first frame: try again after this. */
export const OPENING_RETRY_MS = 2_000;
/** The protocol's largest retry_after_ms. */
const MAX_RETRY_MS = 3_600_000;

type Connection = Pick<ConnectionData, 'phase' | 'retryAt' | 'lastError'>;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

function because(connection: Connection): string {
  const message = connection.lastError?.message.trim();
  return message === undefined || message === '' ? '' : ` (${message.slice(0, 200)})`;
}

/** The error for a call that needs the desktop while the viewer does not show it. */
export function desktopNotShown(connection: Connection, now: number): ProtocolError {
  switch (connection.phase) {
    case 'reconnecting': {
      const untilAttempt = Math.max(0, (connection.retryAt ?? now) - now);
      const wait = Math.min(MAX_RETRY_MS, untilAttempt + RECONNECT_ALLOWANCE_MS);
      return new ProtocolError(
        'viewer_unavailable',
        `The viewer lost the remote desktop${because(connection)} and reconnects by itself in ${seconds(untilAttempt)} s. Retry in ${seconds(wait)} s.`,
        wait,
      );
    }
    case 'connecting':
    case 'waiting':
    case 'connected':
      return new ProtocolError(
        'viewer_unavailable',
        `The viewer is still opening the remote desktop. Retry in ${seconds(OPENING_RETRY_MS)} s.`,
        OPENING_RETRY_MS,
      );
    case 'failed':
      return new ProtocolError(
        'viewer_unavailable',
        `The viewer could not connect to the remote desktop${because(connection)} and will not retry by itself. Ask the person to reconnect in the viewer (or to check that the desktop is running), then call again.`,
      );
    case 'idle':
      return new ProtocolError(
        'viewer_unavailable',
        'The viewer is not connected to the remote desktop. Ask the person to reload the viewer page, then call again.',
      );
    default: {
      const never: never = connection.phase;
      return never;
    }
  }
}
