// The sign-in throttle with an injected clock: Guacamole's 5 failures → 5 minutes ban, per
// source, cleared by success, expiring, and a message that says until when.
import { describe, expect, it } from 'vitest';
import { SignInThrottle, banMessage } from './signInThrottle.js';

describe('SignInThrottle', () => {
  it('bans a source after 5 failures for 5 minutes, and only that source', () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(undefined, () => now);
    for (let i = 0; i < 4; i++) expect(throttle.failed('10.0.0.1').banned).toBe(false);
    const ban = throttle.failed('10.0.0.1');
    expect(ban).toEqual({ banned: true, until: now + 300_000, retryAfterMs: 300_000 });
    expect(throttle.check('10.0.0.2').banned).toBe(false);
    now += 299_999;
    expect(throttle.check('10.0.0.1').banned).toBe(true);
    now += 1;
    expect(throttle.check('10.0.0.1').banned).toBe(false);
  });

  it('a success clears the count', () => {
    const throttle = new SignInThrottle(undefined, () => 0);
    for (let i = 0; i < 4; i++) throttle.failed('s');
    throttle.succeeded('s');
    for (let i = 0; i < 4; i++) expect(throttle.failed('s').banned).toBe(false);
  });

  it('says until when, in UTC and in seconds', () => {
    expect(banMessage(Date.UTC(2026, 0, 1, 14, 5, 9), Date.UTC(2026, 0, 1, 14, 0, 9))).toBe(
      'Too many failed sign-ins from your address. Try again at 14:05:09 UTC (in 300 s).',
    );
  });
});
