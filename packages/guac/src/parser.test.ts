// Unit tests of the streaming parser: chunking edge cases and one test per kind of malformed
// input, each checking the error's status and that the parser is dead afterwards.

import { describe, expect, it } from 'vitest';
import { encodeInstruction } from './encoder.js';
import { GuacParser, type GuacInstruction, type ParserOptions } from './parser.js';
import { GuacProtocolError, GuacStatus } from './status.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Pushes `input`, expects a GuacProtocolError with `status`, then checks the parser is dead. */
function expectFault(
  input: string | Uint8Array | (string | Uint8Array)[],
  status: number,
  message: RegExp,
  limits?: Partial<ParserOptions>,
) {
  const parser = new GuacParser(limits);
  const pieces = Array.isArray(input) ? input : [input];
  let caught: unknown;
  try {
    for (const piece of pieces) parser.push(piece);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GuacProtocolError);
  const error = caught as GuacProtocolError;
  expect(error.status).toBe(status);
  expect(error.message).toMatch(message);
  expect(parser.failed).toBe(true);
  // Dead: even a perfectly valid instruction is never read after a fault.
  expect(() => parser.push('3.nop;')).toThrow(GuacProtocolError);
  expect(() => parser.push(utf8('3.nop;'))).toThrow(/already failed/);
  return error;
}

describe('GuacParser: valid input', () => {
  it('parses several instructions from one chunk', () => {
    expect(new GuacParser().push('4.size,1.0,4.1024,3.768;3.nop;0.,4.ping,3.123;')).toEqual([
      { opcode: 'size', args: ['0', '1024', '768'] },
      { opcode: 'nop', args: [] },
      { opcode: '', args: ['ping', '123'] },
    ]);
  });

  it('parses one byte at a time, through multi-byte characters', () => {
    const parser = new GuacParser();
    const bytes = utf8('9.clipboard,6.é€😀,;.;');
    const out = [];
    for (const byte of bytes) out.push(...parser.push(Uint8Array.of(byte)));
    expect(out).toEqual([{ opcode: 'clipboard', args: ['é€😀,;.'] }]);
  });

  it('waits for the low half of a surrogate pair split across text chunks', () => {
    const parser = new GuacParser();
    expect(parser.push('1.x,1.\uD83D')).toEqual([]);
    expect(parser.push('\uDE00;')).toEqual([{ opcode: 'x', args: ['😀'] }]);
  });

  it('takes a lone surrogate in text as one code point', () => {
    expect(new GuacParser().push('1.x,2.\uD83Da;')).toEqual([{ opcode: 'x', args: ['\uD83Da'] }]);
  });

  it('keeps a leading byte order mark as data (it is a code point of the element)', () => {
    expect(new GuacParser().push(utf8('1.\uFEFF;'))).toEqual([{ opcode: '\uFEFF', args: [] }]);
  });

  it('reports how much of an incomplete instruction it holds, in code points', () => {
    const parser = new GuacParser();
    parser.push('4.size,1.0,4.10');
    expect(parser.buffered).toBe('4.size,1.0,4.10'.length);
    parser.push('24,3.768;');
    expect(parser.buffered).toBe(0);
    parser.push('1.😀');
    expect(parser.buffered).toBe(3);
  });

  it('accepts an instruction exactly at each limit', () => {
    const limits = { maxElementCodePoints: 5, maxInstructionCodePoints: 16, maxElements: 3 };
    const exact = '1.a,5.bbbbb,1.c;'; // 16 code points, 3 elements
    expect(exact.length).toBe(16);
    expect(new GuacParser(limits).push(exact)).toEqual([{ opcode: 'a', args: ['bbbbb', 'c'] }]);
  });

  it('parses a 1 MB blob arriving in 64 KiB chunks exactly', () => {
    const base64 = Buffer.alloc(786_432, 0x5a).toString('base64');
    const bytes = utf8(encodeInstruction('blob', 3, base64) + encodeInstruction('end', 3));
    const parser = new GuacParser();
    const out = [];
    for (let i = 0; i < bytes.length; i += 65_536)
      out.push(...parser.push(bytes.subarray(i, i + 65_536)));
    expect(out).toEqual([
      { opcode: 'blob', args: ['3', base64] },
      { opcode: 'end', args: ['3'] },
    ]);
  });
});

describe('GuacParser: malformed input fails for this connection only', () => {
  it('rejects a non-numeric length', () => {
    expectFault('4.size,x.0;', GuacStatus.CLIENT_BAD_REQUEST, /found 'x' where an element length/);
    expectFault('-1.a;', GuacStatus.CLIENT_BAD_REQUEST, /found '-'/);
    expectFault('GET / HTTP/1.1\r\n', GuacStatus.CLIENT_BAD_REQUEST, /found 'G'/);
  });

  it('rejects an empty length', () => {
    expectFault('.;', GuacStatus.CLIENT_BAD_REQUEST, /no length before its '.'/);
    expectFault('3.nop,.a;', GuacStatus.CLIENT_BAD_REQUEST, /no length/);
  });

  it('rejects a huge length before any of its data arrives', () => {
    const error = expectFault(
      '99999999999',
      GuacStatus.CLIENT_OVERRUN,
      /over the limit of 4194304/,
    );
    expect(error.message).toMatch(/at least 9999999/);
    expectFault('0000000000001.a;', GuacStatus.CLIENT_OVERRUN, /more than 7 digits/);
  });

  it('rejects an element over the element limit', () => {
    expectFault(
      '5.hello;',
      GuacStatus.CLIENT_OVERRUN,
      /length of at least 5 code points, over the limit of 4/,
      {
        maxElementCodePoints: 4,
      },
    );
  });

  it('rejects an instruction over the instruction limit as soon as its size is known', () => {
    const limits = { maxElementCodePoints: 10, maxInstructionCodePoints: 15 };
    // 1.a,5.bbbbb,1.c; is 16 code points: refused at the third '.', before 'c' arrives.
    expectFault(
      '1.a,5.bbbbb,1.',
      GuacStatus.CLIENT_OVERRUN,
      /exceed the limit of 15 code points/,
      limits,
    );
  });

  it('rejects too many elements', () => {
    expectFault('1.a,1.b,1.c,', GuacStatus.CLIENT_OVERRUN, /more than 3 elements/, {
      maxElements: 3,
    });
  });

  it('rejects a missing terminator where the declared length ends', () => {
    expectFault(
      '4.sizeX',
      GuacStatus.CLIENT_BAD_REQUEST,
      /found 'X' after an element of 4 code points/,
    );
    // The CVE-2023-30575 shape: a length counted in UTF-16 units overshoots by one per astral
    // character, so the terminator is not where it should be.
    // Here `2.` swallows the ';' and the next instruction's first digit is read as terminator.
    expectFault(
      utf8('1.x,2.😀;3.nop;'),
      GuacStatus.CLIENT_BAD_REQUEST,
      /found '3' after an element of 2 code points/,
    );
    expectFault('3.nop\n', GuacStatus.CLIENT_BAD_REQUEST, /U\+000A/);
    expectFault('1.a😀', GuacStatus.CLIENT_BAD_REQUEST, /found U\+1F600 after/);
  });

  it('rejects invalid UTF-8', () => {
    expectFault(
      Uint8Array.of(0x31, 0x2e, 0xff, 0x3b),
      GuacStatus.CLIENT_BAD_REQUEST,
      /not valid UTF-8/,
    );
    // An overlong encoding of ';' must not become a terminator.
    expectFault(
      Uint8Array.of(0x31, 0x2e, 0x61, 0xc0, 0xbb),
      GuacStatus.CLIENT_BAD_REQUEST,
      /not valid UTF-8/,
    );
    // An encoded surrogate half.
    expectFault(
      Uint8Array.of(0x31, 0x2e, 0xed, 0xa0, 0x80, 0x3b),
      GuacStatus.CLIENT_BAD_REQUEST,
      /not valid UTF-8/,
    );
  });

  it('rejects a UTF-8 character cut short by the next chunk, even when that chunk is plain ASCII', () => {
    const euro = utf8('€');
    expectFault(
      [utf8('1.'), euro.subarray(0, 2), utf8(';')],
      GuacStatus.CLIENT_BAD_REQUEST,
      /not valid UTF-8/,
    );
  });

  it('rejects text pushed while a UTF-8 character is incomplete', () => {
    const euro = utf8('€');
    expectFault(
      [utf8('1.'), euro.subarray(0, 2), ';'],
      GuacStatus.CLIENT_BAD_REQUEST,
      /text chunk arrived/,
    );
  });

  it('keeps the instructions completed before a fault when asked to', () => {
    const parser = new GuacParser();
    const out: GuacInstruction[] = [];
    expect(() => parser.pushInto('3.nop;4.sync,1.1;1.b@', out)).toThrow(GuacProtocolError);
    expect(out).toEqual([
      { opcode: 'nop', args: [] },
      { opcode: 'sync', args: ['1'] },
    ]);
  });

  it("with lengthUnit 'utf16' counts UTF-16 units, and faults on code point lengths", () => {
    expect(new GuacParser({ lengthUnit: 'utf16' }).push(utf8('1.x,3.a😀;'))).toEqual([
      { opcode: 'x', args: ['a😀'] },
    ]);
    expectFault(
      utf8('1.x,2.a😀;'),
      GuacStatus.CLIENT_BAD_REQUEST,
      /after an element of 2 UTF-16 units/,
      {
        lengthUnit: 'utf16',
      },
    );
  });

  it('refuses nonsensical limits', () => {
    expect(() => new GuacParser({ lengthUnit: 'bytes' as 'utf16' })).toThrow(RangeError);
    expect(() => new GuacParser({ maxElements: 0 })).toThrow(RangeError);
    expect(() => new GuacParser({ maxElementCodePoints: Number.NaN })).toThrow(RangeError);
  });
});
