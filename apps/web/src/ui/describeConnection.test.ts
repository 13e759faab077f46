// Status bar wording for each connection phase, including the countdown and error detail.
import { describe, expect, it } from 'vitest';
import { INITIAL_CONNECTION, type ConnectionData } from '../store/connection.js';
import { describeConnection, describeError, errorCode } from './describeConnection.js';

const state = (patch: Partial<ConnectionData>): ConnectionData => ({
  ...INITIAL_CONNECTION,
  ...patch,
});
const error = { message: 'Desktop is not running', status: 519, away: 'desktop' as const };

describe('describeConnection', () => {
  it('counts down whole seconds until the retry', () => {
    const s = state({ phase: 'reconnecting', retryAt: 10_000, lastError: error });
    expect(describeConnection(s, 7_100)).toEqual({
      tone: 'warn',
      label: 'Reconnecting in 3 s',
      detail:
        'The bridge is up, but the remote desktop behind it is not answering: Desktop is not running',
      code: 'Guacamole status 519 UPSTREAM_NOT_FOUND',
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

  it('shows the server message in words, and the status only as the code', () => {
    expect(
      describeConnection(
        state({ phase: 'failed', lastError: { message: 'Sign in first', status: 769 } }),
        0,
      ),
    ).toEqual({
      tone: 'error',
      label: 'Error',
      detail: 'Sign in first',
      code: 'Guacamole status 769 CLIENT_UNAUTHORIZED',
    });
    expect(errorCode({ message: 'x', status: 4242 })).toBe('Guacamole status 4242 STATUS_4242');
  });

  it('says what is away — the bridge or the desktop — without status names', () => {
    const bridge = describeError({ message: 'socket closed', status: 519, away: 'bridge' });
    expect(bridge).toMatch(/^The bridge cannot be reached/);
    expect(bridge).not.toMatch(/UPSTREAM|519/);
    const desktop = describeError({ message: 'VNC server refused', status: 519, away: 'desktop' });
    expect(desktop).toMatch(/^The bridge is up, but the remote desktop/);
  });
});
