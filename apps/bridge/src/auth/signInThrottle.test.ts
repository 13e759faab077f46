// The sign-in throttle with an injected clock: a ban per address (all of loopback one address),
// a growing delay per account whatever the address, attempts booked before their answer so a
// burst cannot slip past a limit, and a device cookie that spares the person who signed in
// before (until its own budget runs out). The same over real HTTP: signInThrottle.attacks.test.ts.
import { describe, expect, it } from 'vitest';
import { SignInDevices } from './signInDevice.js';
import {
  MemorySignInThrottle,
  addressKeyOf,
  banMessage,
  type SignInAttempt,
  type ThrottleDecision,
} from './signInThrottle.js';

function attempt(address: string, account = 'alice', deviceCookie?: string): SignInAttempt {
  return { account, address, deviceCookie };
}

/** Reserves and fails one attempt; 'refused' when it was not let in. */
function fail(throttle: MemorySignInThrottle, a: SignInAttempt): 'refused' | 401 | 429 {
  const decision = throttle.reserve(a);
  if (!decision.allowed) return 'refused';
  return decision.attempt.failed().banned ? 429 : 401;
}

function allowed(decision: ThrottleDecision) {
  if (!decision.allowed) throw new Error(`refused: ${JSON.stringify(decision)}`);
  return decision.attempt;
}

describe('MemorySignInThrottle', () => {
  it('bans an address after 5 failures for 5 minutes, and only that address', () => {
    let now = 1_000_000;
    const throttle = new MemorySignInThrottle(undefined, () => now);
    for (let i = 0; i < 4; i++) expect(fail(throttle, attempt('10.0.0.1', `u${i}`))).toBe(401);
    const fifth = allowed(throttle.reserve(attempt('10.0.0.1', 'u4'))).failed();
    expect(fifth).toEqual({ banned: true, until: now + 300_000, retryAfterMs: 300_000 });
    expect(throttle.reserve(attempt('10.0.0.2', 'other')).allowed).toBe(true);
    now += 299_999;
    expect(throttle.reserve(attempt('10.0.0.1', 'u9'))).toMatchObject({
      allowed: false,
      limit: 'address',
    });
    now += 1;
    expect(throttle.reserve(attempt('10.0.0.1', 'u9')).allowed).toBe(true);
  });

  it('books attempts before their answer: of 40 at once only 5 are let in', () => {
    const throttle = new MemorySignInThrottle(undefined, () => 0);
    const decisions = Array.from({ length: 40 }, () => throttle.reserve(attempt('10.0.0.1')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    // And the answers arriving afterwards start the ban: the right password later is refused.
    for (const d of decisions) if (d.allowed) d.attempt.failed();
    expect(throttle.reserve(attempt('10.0.0.1')).allowed).toBe(false);
  });

  it('counts every loopback address as one, and IPv6 by /64', () => {
    expect(addressKeyOf('127.0.0.1')).toBe('loopback');
    expect(addressKeyOf('127.0.0.15')).toBe('loopback');
    expect(addressKeyOf('::1')).toBe('loopback');
    expect(addressKeyOf('::ffff:127.0.0.2')).toBe('loopback');
    expect(addressKeyOf('2001:db8:1:2::5')).toBe(addressKeyOf('2001:db8:1:2:ffff::9'));
    expect(addressKeyOf('2001:db8:1:2::5')).not.toBe(addressKeyOf('2001:db8:1:3::5'));
    const throttle = new MemorySignInThrottle(undefined, () => 0);
    for (let i = 1; i <= 5; i++) fail(throttle, attempt(`127.0.0.${i}`, `u${i}`));
    expect(throttle.reserve(attempt('127.0.0.99', 'someone')).allowed).toBe(false);
  });

  it('slows an account guessed from many addresses: a delay that doubles, up to banMs', () => {
    let now = 0;
    const throttle = new MemorySignInThrottle(undefined, () => now);
    const from = (i: number) => attempt(`198.51.100.${i}`);
    for (let i = 0; i < 5; i++) expect(fail(throttle, from(i))).toBe(401);
    expect(throttle.reserve(from(50))).toMatchObject({ allowed: false, limit: 'account' });
    const delays: number[] = [];
    for (let i = 5; i < 16; i++) {
      const refused = throttle.reserve(from(i));
      if (refused.allowed) throw new Error('expected a delay');
      delays.push(refused.retryAfterMs);
      now += refused.retryAfterMs;
      expect(fail(throttle, from(i + 100))).toBe(401);
    }
    expect(delays).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000,
    ]);
    // Another account is not slowed.
    expect(throttle.reserve(attempt('198.51.100.7', 'bob')).allowed).toBe(true);
  });

  it('spares a browser that signed in to the account before, with a budget of its own', () => {
    const throttle = new MemorySignInThrottle(undefined, () => 0);
    const first = allowed(throttle.reserve(attempt('127.0.0.1')));
    const device = first.succeeded();
    // A local process bans the address and slows the account…
    for (let i = 0; i < 40; i++) fail(throttle, attempt('127.0.0.1'));
    expect(throttle.reserve(attempt('127.0.0.1')).allowed).toBe(false);
    // …but the person's browser still gets in; the cookie is no good for another account.
    allowed(throttle.reserve(attempt('127.0.0.1', 'alice', device))).succeeded();
    expect(throttle.reserve(attempt('127.0.0.1', 'bob', device)).allowed).toBe(false);
    expect(throttle.reserve(attempt('127.0.0.1', 'alice', `${device}x`)).allowed).toBe(false);
    // Its own failures answer 401; after 5 it is an unknown browser again.
    for (let i = 0; i < 5; i++)
      expect(fail(throttle, attempt('127.0.0.1', 'alice', device))).toBe(401);
    expect(throttle.reserve(attempt('127.0.0.1', 'alice', device)).allowed).toBe(false);
  });

  it('a success frees its own booking and clears the account, not other guesses from its address', () => {
    const throttle = new MemorySignInThrottle(undefined, () => 0);
    for (let i = 0; i < 4; i++) fail(throttle, attempt('10.0.0.1', 'mallory'));
    allowed(throttle.reserve(attempt('10.0.0.1'))).succeeded();
    // The address still has mallory's 4: the next failure is the fifth.
    expect(fail(throttle, attempt('10.0.0.1', 'mallory'))).toBe(429);
  });

  it('takes back an attempt never judged (a store outage), leaving no limit held in flight', () => {
    const now = 1_000_000;
    const throttle = new MemorySignInThrottle(undefined, () => now);
    for (let i = 0; i < 4; i++) expect(fail(throttle, attempt('10.0.0.1'))).toBe(401);
    // The fifth would reach both limits; while it is judged, everyone else waits for it.
    const fifth = allowed(throttle.reserve(attempt('10.0.0.1')));
    expect(throttle.reserve(attempt('10.0.0.1', 'bob')).allowed).toBe(false);
    expect(throttle.reserve(attempt('10.0.0.9')).allowed).toBe(false); // the account's turn
    fifth.abandoned();
    // As if it never came: the address and the account are where four failures left them.
    expect(throttle.reserve(attempt('10.0.0.9', 'carol')).allowed).toBe(true);
    const again = allowed(throttle.reserve(attempt('10.0.0.1')));
    expect(again.failed().banned).toBe(true);
  });

  it('signs device cookies for one account only', () => {
    const devices = new SignInDevices();
    const cookie = devices.issue('alice');
    expect(devices.verify(cookie, 'alice')).toBe(cookie.split('.')[0]);
    expect(devices.verify(cookie, 'bob')).toBeUndefined();
    expect(new SignInDevices().verify(cookie, 'alice')).toBeUndefined();
    expect(devices.verify(`${cookie}.x`, 'alice')).toBeUndefined();
    expect(devices.verify(undefined, 'alice')).toBeUndefined();
  });

  it('says until when, in UTC and in seconds, and whether the address or the account', () => {
    const at = Date.UTC(2026, 0, 1, 14, 5, 9);
    const now = Date.UTC(2026, 0, 1, 14, 0, 9);
    expect(banMessage(at, now)).toBe(
      'Too many failed sign-ins from your address. Try again at 14:05:09 UTC (in 300 s).',
    );
    expect(banMessage(at, now, 'account')).toMatch(/^Too many failed sign-ins for this account\./);
  });
});
