// Property tests of the codec: round trips through random byte and text splits, code point
// counting, and a differential test of the streaming parser against a tiny whole-input reference
// parser on hostile input (including its errors and limits).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, encodeInstruction, encodeInstructionUtf16 } from './encoder.js';
import { GuacParser, type GuacInstruction, type ParserLimits } from './parser.js';
import { GuacProtocolError } from './status.js';
import {
  instructionsArb,
  splitBytes,
  splitsArb,
  splitText,
  TRICKY_CHARS,
} from './test-support/arbitraries.js';

const RUNS = 10_000;
const utf8 = new TextEncoder();

function encodeAll(instructions: readonly GuacInstruction[]): string {
  return instructions.map((i) => encodeInstruction(i.opcode, ...i.args)).join('');
}

describe('codec properties', () => {
  it('encode → UTF-8 → split bytes anywhere → parse gives back exactly the instructions', () => {
    fc.assert(
      fc.property(instructionsArb, splitsArb, (instructions, splits) => {
        const parser = new GuacParser();
        const parsed: GuacInstruction[] = [];
        for (const piece of splitBytes(utf8.encode(encodeAll(instructions)), splits)) {
          parsed.push(...parser.push(piece));
        }
        expect(parsed).toEqual(instructions);
        expect(parser.buffered).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('encode → split text anywhere (even inside surrogate pairs) → parse gives back exactly the instructions', () => {
    fc.assert(
      fc.property(instructionsArb, splitsArb, (instructions, splits) => {
        const parser = new GuacParser();
        const parsed: GuacInstruction[] = [];
        for (const piece of splitText(encodeAll(instructions), splits))
          parsed.push(...parser.push(piece));
        expect(parsed).toEqual(instructions);
      }),
      { numRuns: RUNS },
    );
  });

  it("UTF-16 lengths (the 1.5.0 browser leg): encode → split bytes → 'utf16' parser gives back exactly the instructions", () => {
    fc.assert(
      fc.property(instructionsArb, splitsArb, (instructions, splits) => {
        const text = instructions.map((i) => encodeInstructionUtf16(i.opcode, ...i.args)).join('');
        const parser = new GuacParser({ lengthUnit: 'utf16' });
        const parsed: GuacInstruction[] = [];
        for (const piece of splitBytes(utf8.encode(text), splits))
          parsed.push(...parser.push(piece));
        expect(parsed).toEqual(instructions);
      }),
      { numRuns: RUNS },
    );
  });

  it('every prefix of a valid stream parses without error to a prefix of the instructions', () => {
    fc.assert(
      fc.property(
        instructionsArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (instructions, cut) => {
          const bytes = utf8.encode(encodeAll(instructions));
          const parsed = new GuacParser().push(bytes.subarray(0, Math.floor(cut * bytes.length)));
          expect(parsed).toEqual(instructions.slice(0, parsed.length));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('codePointLength equals the number of code points, lone surrogates included', () => {
    const anyUtf16 = fc
      .array(
        fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff })),
        {
          maxLength: 40,
        },
      )
      .map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(
        fc.oneof(anyUtf16, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })),
        (s) => {
          expect(codePointLength(s)).toBe([...s].length);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// The reference: whole input as an array of code points, read front to back with the same
// limits, in the most direct way possible. Returns the instructions before the first fault and
// whether there was one.
function referenceParse(
  input: string,
  limits: ParserLimits,
): { instructions: GuacInstruction[]; faulted: boolean } {
  const cps = [...input];
  const instructions: GuacInstruction[] = [];
  const maxDigits = String(limits.maxElementCodePoints).length;
  let i = 0;
  let elements: string[] = [];
  let instructionSize = 0;
  const faulted = { instructions, faulted: true };
  for (;;) {
    let digits = '';
    while (i < cps.length && /^[0-9]$/.test(cps[i] as string)) {
      digits += cps[i];
      i++;
      if (Number(digits) > limits.maxElementCodePoints || digits.length > maxDigits) return faulted;
    }
    if (i >= cps.length) return { instructions, faulted: false };
    if (cps[i] !== '.' || digits === '') return faulted;
    i++;
    const length = Number(digits);
    instructionSize += digits.length + 1;
    if (instructionSize + length + 1 > limits.maxInstructionCodePoints) return faulted;
    if (i + length > cps.length) return { instructions, faulted: false };
    elements.push(cps.slice(i, i + length).join(''));
    i += length;
    instructionSize += length + 1;
    if (i >= cps.length) return { instructions, faulted: false };
    const terminator = cps[i];
    i++;
    if (terminator === ';') {
      const [opcode = '', ...args] = elements;
      instructions.push({ opcode, args });
      elements = [];
      instructionSize = 0;
    } else if (terminator !== ',' || elements.length >= limits.maxElements) {
      return faulted;
    }
  }
}

describe('parser against a reference parser on hostile input', () => {
  const limits: ParserLimits = {
    maxElementCodePoints: 12,
    maxInstructionCodePoints: 40,
    maxElements: 4,
  };
  // Mostly framing characters, so that valid, truncated and malformed streams all occur often.
  const hostile = fc.string({
    unit: fc.constantFrom(
      '0',
      '1',
      '2',
      '3',
      '9',
      '.',
      '.',
      ',',
      ',',
      ';',
      ';',
      'a',
      '😀',
      'é',
      '-',
      ' ',
    ),
    maxLength: 60,
  });
  // Valid instructions that fit the limits, so that faults come after good instructions too.
  const small = fc.string({ unit: fc.constantFrom(...TRICKY_CHARS), maxLength: 4 });
  const fittingArb = fc.array(
    fc.record({ opcode: small, args: fc.array(small, { maxLength: 2 }) }),
    {
      minLength: 1,
      maxLength: 4,
    },
  );
  const validThenNoise = fc
    .tuple(fittingArb, hostile)
    .map(([instructions, noise]) => encodeAll(instructions) + noise);
  // A valid stream with one code point replaced, inserted or deleted: the classic misframing.
  const mutated = fc
    .tuple(
      fittingArb,
      fc.nat(),
      fc.constantFrom('', '0', '1', '9', '.', ',', ';', 'a', '😀'),
      fc.boolean(),
    )
    .map(([instructions, at, replacement, insert]) => {
      const cps = [...encodeAll(instructions)];
      const index = at % (cps.length + 1);
      cps.splice(index, insert ? 0 : 1, replacement);
      return cps.join('');
    });

  it('matches the reference, instruction for instruction and fault for fault, in any chunking', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, validThenNoise, mutated), splitsArb, (input, splits) => {
        const expected = referenceParse(input, limits);
        const parser = new GuacParser(limits);
        const parsed: GuacInstruction[] = [];
        let fault: unknown;
        try {
          for (const piece of splitBytes(utf8.encode(input), splits))
            parser.pushInto(piece, parsed);
        } catch (error) {
          fault = error;
        }
        expect(parsed).toEqual(expected.instructions);
        expect(fault !== undefined).toBe(expected.faulted);
        if (fault !== undefined) {
          expect(fault).toBeInstanceOf(GuacProtocolError);
          // Dead: nothing after a fault is ever read, not even a perfectly valid instruction.
          expect(() => parser.push('3.nop;')).toThrow(GuacProtocolError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('throws nothing but GuacProtocolError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 5 }), (chunks) => {
        const parser = new GuacParser(limits);
        try {
          for (const chunk of chunks) parser.push(chunk);
        } catch (error) {
          expect(error).toBeInstanceOf(GuacProtocolError);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
