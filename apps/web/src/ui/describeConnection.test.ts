// Status bar wording for each connection phase, including the countdown and error detail.
import { describe, expect, it } from 'vitest';
import { INITIAL_CONNECTION, type ConnectionData } from '../store/connection.js';
import { describeConnection, describeError } from './describeConnection.js';

const state = (patch: Partial<ConnectionData>): ConnectionData => ({
  ...INITIAL_CONNECTION,
  ...patch,
});
const error = { message: 'Desktop is not running', status: 519 };

describe('describeConnection', () => {
  it('counts down whole seconds until the retry', () => {
    const s = state({ phase: 'reconnecting', retryAt: 10_000, lastError: error });
    expect(describeConnection(s, 7_100)).toEqual({
      tone: 'warn',
      label: 'Reconnecting in 3 s',
      detail: 'Desktop is not running — Guacamole status 519 UPSTREAM_NOT_FOUND',
    });
    expect(describeConnection(s, 9_999).label).toBe('Reconnecting in 1 s');
    expect(describeConnection(s, 10_500).label).toBe('Reconnecting…');
  });

  it('names each phase', () => {
    expect(describeConnection(state({}), 0)).toMatchObject({
      tone: 'idle',
      label: 'Not connected',
    });
    expect(describeConnection(state({ phase: 'connecting' }), 0).label).toBe('Connecting…');
    expect(describeConnection(state({ phase: 'connecting', attempt: 2 }), 0).label).toBe(
      'Connecting (attempt 3)…',
    );
    expect(describeConnection(state({ phase: 'waiting' }), 0).label).toBe('Opening the desktop…');
    expect(describeConnection(state({ phase: 'connected' }), 0)).toEqual({
      tone: 'ok',
      label: 'Connected',
      detail: null,
    });
    expect(describeConnection(state({ phase: 'connected', unstable: true }), 0).tone).toBe('warn');
  });

  it('shows the server message and status on failure', () => {
    expect(
      describeConnection(
        state({ phase: 'failed', lastError: { message: 'Sign in first', status: 769 } }),
        0,
      ),
    ).toEqual({
      tone: 'error',
      label: 'Error',
      detail: 'Sign in first — Guacamole status 769 CLIENT_UNAUTHORIZED',
    });
    expect(describeError({ message: 'x', status: 4242 })).toBe(
      'x — Guacamole status 4242 STATUS_4242',
    );
  });
});
