// Unit tests of the encoder: exact wire text, code point lengths, and speed on blob-sized data.

import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  encodeElement,
  encodeInstruction,
  encodeInstructionUtf16,
} from './encoder.js';

describe('encodeInstruction', () => {
  it('writes the wire format of the protocol reference', () => {
    expect(encodeInstruction('size', 0, 1024, 768)).toBe('4.size,1.0,4.1024,3.768;');
    expect(encodeInstruction('nop')).toBe('3.nop;');
    expect(encodeInstruction('', 'abc')).toBe('0.,3.abc;');
    expect(encodeInstruction('select', '')).toBe('6.select,0.;');
  });

  it('counts code points, not UTF-16 units or bytes', () => {
    expect(encodeInstruction('clipboard', '😀')).toBe('9.clipboard,1.😀;');
    expect(encodeInstruction('x', 'é€😀𝄞')).toBe('1.x,4.é€😀𝄞;');
    // A lone surrogate is one code point (it becomes one U+FFFD in UTF-8).
    expect(encodeInstruction('x', '\uD83D')).toBe('1.x,1.\uD83D;');
  });

  it('writes numbers in plain decimal and refuses non-finite ones', () => {
    expect(encodeInstruction('mouse', 10, -1, 0.5)).toBe('5.mouse,2.10,2.-1,3.0.5;');
    expect(() => encodeInstruction('mouse', Number.NaN)).toThrow(TypeError);
    expect(() => encodeInstruction('mouse', Number.POSITIVE_INFINITY)).toThrow(/finite number/);
  });

  it('encodes a 1 MB blob instruction exactly (its speed is measured by the bench, not here)', () => {
    const base64 = Buffer.alloc(786_432, 0xa5).toString('base64'); // 1 MiB of base64
    expect(base64.length).toBe(1_048_576);
    const encoded = encodeInstruction('blob', 7, base64);
    expect(encoded.startsWith('4.blob,1.7,1048576.')).toBe(true);
    expect(encoded.endsWith(';')).toBe(true);
    expect(encoded.length).toBe('4.blob,1.7,1048576.'.length + 1_048_576 + 1);
  });
});

describe('encodeInstructionUtf16 (only for guacamole-common-js ≤ 1.5.1 browsers)', () => {
  it('counts UTF-16 units and otherwise matches encodeInstruction', () => {
    expect(encodeInstructionUtf16('name', 'a😀')).toBe('4.name,3.a😀;');
    expect(encodeInstructionUtf16('size', 0, 1024, 768)).toBe(
      encodeInstruction('size', 0, 1024, 768),
    );
    expect(() => encodeInstructionUtf16('x', Number.NaN)).toThrow(TypeError);
  });
});

describe('codePointLength', () => {
  it('counts surrogate pairs once and lone surrogates once', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀')).toBe(1);
    expect(codePointLength('a😀b𝄞')).toBe(4);
    expect(codePointLength('\uDE00\uD83D')).toBe(2); // low then high: not a pair
    expect(codePointLength('\uD83D\uD83D\uDE00')).toBe(2);
    expect(encodeElement('😀😀')).toBe('2.😀😀');
  });
});
