// The first-run setup code: one code per start, works once, wrong codes do not use it up.
import { describe, expect, it } from 'vitest';
import { SetupCode } from './setupCode.js';

describe('SetupCode', () => {
  it('is minted once, accepted once, and a wrong code does not use it up', () => {
    const setup = new SetupCode();
    const code = setup.issue();
    expect(setup.issue()).toBe(code);
    expect(code.length).toBeGreaterThanOrEqual(24);
    expect(setup.consume('wrong')).toBe(false);
    expect(setup.pending).toBe(true);
    expect(setup.consume(code)).toBe(true);
    expect(setup.pending).toBe(false);
    expect(setup.consume(code)).toBe(false);
  });
});
