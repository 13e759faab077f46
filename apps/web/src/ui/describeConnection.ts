// Turns the connection state into the words and colour the status bar shows. Pure (the clock
// is a parameter) so every state's wording is unit-tested without a DOM.
import type { ConnectionData, ConnectionError } from '../store/connection.js';
import { statusName } from '../display/guacStatus.js';

export type StatusTone = 'idle' | 'busy' | 'ok' | 'warn' | 'error';

export interface ConnectionDescription {
  tone: StatusTone;
  /** Short state, e.g. "Reconnecting in 3 s". */
  label: string;
  /** Why, in plain words, when there is something to explain (what is away and why). */
  detail: string | null;
  /** The technical code behind it, for a tooltip ("Guacamole status 519 UPSTREAM_NOT_FOUND"). */
  code?: string | undefined;
}

/** The technical code, for a tooltip only: people read describeError's words. */
export function errorCode(error: ConnectionError): string {
  return `Guacamole status ${error.status} ${statusName(error.status)}`;
}

/** What is away and why, in words a person can act on (no status names). */
export function describeError(error: ConnectionError): string {
  switch (error.away) {
    case 'bridge':
      return 'The bridge cannot be reached — it may be restarting, or this computer is offline.';
    case 'desktop':
      return `The bridge is up, but the remote desktop behind it is not answering: ${error.message}`;
    default:
      return error.message;
  }
}

export function describeConnection(state: ConnectionData, now: number): ConnectionDescription {
  const detail = state.lastError ? describeError(state.lastError) : null;
  const code = state.lastError ? errorCode(state.lastError) : undefined;
  switch (state.phase) {
    case 'idle':
      return { tone: 'idle', label: 'Not connected', detail: null };
    case 'connecting':
      return {
        tone: 'busy',
        label: state.attempt > 0 ? `Connecting (attempt ${state.attempt + 1})…` : 'Connecting…',
        detail,
        code,
      };
    case 'waiting':
      return { tone: 'busy', label: 'Opening the desktop…', detail, code };
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
        code,
      };
    }
    case 'failed':
      return { tone: 'error', label: 'Error', detail: detail ?? 'The connection ended.', code };
    default: {
      const never: never = state.phase;
      throw new Error(`unknown connection phase ${String(never)}`);
    }
  }
}
