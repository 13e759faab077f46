// Turns the connection state into the words and colour the status bar shows. Pure (the clock
// is a parameter) so every state's wording is unit-tested without a DOM.
import type { ConnectionData, ConnectionError } from '../store/connection.js';
import { statusName } from '../display/guacStatus.js';

export type StatusTone = 'idle' | 'busy' | 'ok' | 'warn' | 'error';

export interface ConnectionDescription {
  tone: StatusTone;
  /** Short state, e.g. "Reconnecting in 3 s". */
  label: string;
  /** Why, when there is something to explain (the server's message and the Guacamole status). */
  detail: string | null;
}

/** "Desktop is not running — Guacamole status 519 UPSTREAM_NOT_FOUND". */
export function describeError(error: ConnectionError): string {
  return `${error.message} — Guacamole status ${error.status} ${statusName(error.status)}`;
}

export function describeConnection(state: ConnectionData, now: number): ConnectionDescription {
  const detail = state.lastError ? describeError(state.lastError) : null;
  switch (state.phase) {
    case 'idle':
      return { tone: 'idle', label: 'Not connected', detail: null };
    case 'connecting':
      return {
        tone: 'busy',
        label: state.attempt > 0 ? `Connecting (attempt ${state.attempt + 1})…` : 'Connecting…',
        detail,
      };
    case 'waiting':
      return { tone: 'busy', label: 'Opening the desktop…', detail };
    case 'connected':
      return state.unstable
        ? { tone: 'warn', label: 'Connected — network unstable', detail: null }
        : { tone: 'ok', label: 'Connected', detail: null };
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil(((state.retryAt ?? now) - now) / 1000));
      return {
        tone: 'warn',
        label: seconds > 0 ? `Reconnecting in ${seconds} s` : 'Reconnecting…',
        detail,
      };
    }
    case 'failed':
      return { tone: 'error', label: 'Error', detail: detail ?? 'The connection ended.' };
    default: {
      const never: never = state.phase;
      throw new Error(`unknown connection phase ${String(never)}`);
    }
  }
}
