// fast-check generators and helpers shared by the codec's property tests (test code only).

import fc from 'fast-check';
import type { GuacInstruction } from '../parser.js';

/** Characters that matter to the protocol's framing, plus multi-unit and multi-byte ones. */
export const TRICKY_CHARS = [
  ',',
  ';',
  '.',
  '0',
  '1',
  '9',
  'a',
  'é',
  '€',
  '\u0000',
  '\uFEFF',
  '😀',
  '𝄞',
  '\u{10FFFF}',
];

/**
 * Element values: printable graphemes (astral ones, combining sequences), any code point, and
 * strings dense in separators and digits so that a miscounted length would misframe.
 */
export const elementArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...TRICKY_CHARS), maxLength: 12 }),
);

const BMP_TRICKY = TRICKY_CHARS.filter((c) => c.length === 1);

/** Element values without any surrogate (Basic Multilingual Plane only), generated directly. */
export const bmpElementArb: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...BMP_TRICKY),
    fc.integer({ min: 0, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0xe000, max: 0xffff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 12,
});

export const instructionArb: fc.Arbitrary<GuacInstruction> = fc.record({
  opcode: elementArb,
  args: fc.array(elementArb, { maxLength: 6 }),
});

export const instructionsArb: fc.Arbitrary<GuacInstruction[]> = fc.array(instructionArb, {
  minLength: 1,
  maxLength: 5,
});

/** Split points as fractions, so one generated value fits inputs of any length. */
export const splitsArb: fc.Arbitrary<number[]> = fc.array(
  fc.double({ min: 0, max: 1, noNaN: true }),
  {
    maxLength: 12,
  },
);

/** Cuts `length` items at the given fractional points: sorted, possibly empty pieces. */
export function cutPoints(length: number, fractions: readonly number[]): number[] {
  return [...fractions.map((f) => Math.floor(f * length)), 0, length].sort((a, b) => a - b);
}

export function splitBytes(bytes: Uint8Array, fractions: readonly number[]): Uint8Array[] {
  const points = cutPoints(bytes.length, fractions);
  const pieces: Uint8Array[] = [];
  for (let i = 1; i < points.length; i++) pieces.push(bytes.subarray(points[i - 1], points[i]));
  return pieces;
}

/** Splits at UTF-16 unit boundaries: surrogate pairs may be cut in two. */
export function splitText(text: string, fractions: readonly number[]): string[] {
  const points = cutPoints(text.length, fractions);
  const pieces: string[] = [];
  for (let i = 1; i < points.length; i++) pieces.push(text.slice(points[i - 1], points[i]));
  return pieces;
}
