// Backoff math: growth, cap, jitter bounds and the spread of the random source.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelay, nominalDelay, remainingDelay } from './backoff.js';

describe('nominalDelay', () => {
  it('doubles from 0.5 s and stops at the 10 s cap', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 30, 5000].map((n) => nominalDelay(n));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000]);
  });

  it('rejects negative and fractional attempts', () => {
    expect(() => nominalDelay(-1)).toThrow(RangeError);
    expect(() => nominalDelay(1.5)).toThrow(RangeError);
  });
});

describe('backoffDelay', () => {
  it('maps the ends of the random range to ±30 %', () => {
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 0)).toBe(350);
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 0.5)).toBe(500);
    expect(backoffDelay(10, DEFAULT_BACKOFF, () => 0)).toBe(7000);
    // random() < 1, so the upper bound is approached, never passed.
    expect(backoffDelay(10, DEFAULT_BACKOFF, () => 0.999999)).toBe(13_000);
  });

  it('always lies within the jitter band around the nominal delay', () => {
    fc.assert(
      fc.property(
        fc.nat(64),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const nominal = nominalDelay(attempt);
          const delay = backoffDelay(attempt, DEFAULT_BACKOFF, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * 0.7));
          expect(delay).toBeLessThanOrEqual(Math.ceil(nominal * 1.3));
        },
      ),
    );
  });

  it('spreads delays over the band with Math.random instead of returning one value', () => {
    const samples = Array.from({ length: 400 }, () => backoffDelay(3));
    const min = Math.min(...samples);
    const max = Math.max(...samples);
    expect(min).toBeGreaterThanOrEqual(2800);
    expect(max).toBeLessThanOrEqual(5200);
    // 400 uniform samples over ±30 % cover most of the band.
    expect(max - min).toBeGreaterThan(1600);
  });
});

describe('remainingDelay', () => {
  it('takes what the attempt already took off the delay, never below 0 nor above it', () => {
    expect(remainingDelay(1000, 300)).toBe(700);
    expect(remainingDelay(1000, 6500)).toBe(0);
    // A clock that went backwards does not lengthen the wait.
    expect(remainingDelay(1000, -50)).toBe(1000);
    fc.assert(
      fc.property(fc.nat(20_000), fc.integer({ min: -1000, max: 60_000 }), (delay, took) => {
        const left = remainingDelay(delay, took);
        return left >= 0 && left <= delay && (took <= 0 || left === Math.max(0, delay - took));
      }),
    );
  });
});
