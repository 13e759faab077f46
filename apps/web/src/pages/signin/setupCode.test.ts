import { describe, expect, it } from 'vitest';
import { setupCodeFromHash } from './setupCode.js';

describe('setupCodeFromHash', () => {
  it('reads the code from the fragment, decoded', () => {
    expect(setupCodeFromHash('#code=Ab3-x_9')).toBe('Ab3-x_9');
    expect(setupCodeFromHash('#other=1&code=a%2Bb')).toBe('a+b');
    expect(setupCodeFromHash('code=plain')).toBe('plain');
  });

  it('is null when there is none', () => {
    expect(setupCodeFromHash('')).toBeNull();
    expect(setupCodeFromHash('#')).toBeNull();
    expect(setupCodeFromHash('#code=')).toBeNull();
    expect(setupCodeFromHash('#token=abc')).toBeNull();
  });
});
