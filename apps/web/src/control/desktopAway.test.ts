// The errors a call gets while the viewer does not show the desktop: a kind the AI can act on
// (never system_error, whose hint says to take a screenshot: the screenshot is what fails) and,
// while the viewer reconnects by itself, the wait up to the next attempt and its handshake.
import { ERROR_HINTS } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { OPENING_RETRY_MS, RECONNECT_ALLOWANCE_MS, desktopNotShown } from './desktopAway.js';
import { toolError } from './answers.js';

const NOW = 1_000_000;
const lost = { message: 'Upstream connection closed', status: 0x0207, away: 'desktop' as const };

describe('desktopNotShown', () => {
  it('while reconnecting: viewer_unavailable with retry_after_ms to the next attempt and its handshake', () => {
    const error = desktopNotShown(
      { phase: 'reconnecting', retryAt: NOW + 3_200, lastError: lost },
      NOW,
    );
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.retryAfterMs).toBe(3_200 + RECONNECT_ALLOWANCE_MS);
    expect(error.message).toBe(
      'The viewer lost the remote desktop (Upstream connection closed) and reconnects by itself in 4 s. Retry in 5 s.',
    );
    // What reaches the bridge keeps the wait.
    expect(toolError('c1', error.kind, error.message, error.retryAfterMs)).toMatchObject({
      kind: 'viewer_unavailable',
      retry_after_ms: 4_200,
    });
  });

  it('an attempt already due still waits for its handshake', () => {
    const error = desktopNotShown(
      { phase: 'reconnecting', retryAt: NOW - 500, lastError: null },
      NOW,
    );
    expect(error.retryAfterMs).toBe(RECONNECT_ALLOWANCE_MS);
    expect(error.message).toBe(
      'The viewer lost the remote desktop and reconnects by itself in 1 s. Retry in 1 s.',
    );
  });

  it.each(['connecting', 'waiting', 'connected'] as const)(
    'while still opening (%s): viewer_unavailable, retry in 2 s',
    (phase) => {
      const error = desktopNotShown({ phase, retryAt: null, lastError: null }, NOW);
      expect(error.kind).toBe('viewer_unavailable');
      expect(error.retryAfterMs).toBe(OPENING_RETRY_MS);
      expect(error.message).toMatch(/still opening the remote desktop\. Retry in 2 s\.$/);
    },
  );

  it('given up: no retry time; the person must act, and the message says so', () => {
    const error = desktopNotShown(
      {
        phase: 'failed',
        retryAt: null,
        lastError: { message: 'Authentication failed', status: 0x0301 },
      },
      NOW,
    );
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toMatch(
      /\(Authentication failed\) and will not retry by itself\. Ask the person/,
    );
  });

  it('not started: no retry time; asks for the page to be reloaded', () => {
    const error = desktopNotShown({ phase: 'idle', retryAt: null, lastError: null }, NOW);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toMatch(/reload the viewer page/);
  });

  it('the hint appended to viewer_unavailable fits a wait as well as a missing window', () => {
    expect(ERROR_HINTS.viewer_unavailable).toMatch(/retry_after_ms/);
    expect(ERROR_HINTS.viewer_unavailable).not.toMatch(/screenshot/);
  });
});
